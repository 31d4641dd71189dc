import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

/** One Prisma schema and the Postgres schema (namespace) it owns. */
export interface Target {
  /** Folder name, e.g. `accounts` or `webhook-worker`; what the CLI takes. */
  name: string;
  /** Postgres schema the tables and `_prisma_migrations` live in, e.g. `webhook_worker`. */
  schema: string;
  /** The package or service folder. */
  dir: string;
  schemaFile: string;
  migrationsDir: string;
}

const TARGET_PARENTS = ['packages', 'services'];

// The name ends up in search_path and in DDL without quoting, so keep it to plain identifiers.
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export function findRepoRoot(start: string): string {
  let dir = path.resolve(start);
  for (;;) {
    if (existsSync(path.join(dir, 'pnpm-workspace.yaml'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no pnpm-workspace.yaml above ${start}`);
    dir = parent;
  }
}

/**
 * The Postgres schema a project's package.json pins (`"postgresSchema"`), if any: a project
 * that was moved or renamed keeps the schema its tables live in, since renaming that is a
 * data migration, not a code move (packages/http keeps `kit`).
 */
export function postgresSchemaOf(dir: string): string | undefined {
  const manifest = path.join(dir, 'package.json');
  if (!existsSync(manifest)) return undefined;
  const pinned: unknown = JSON.parse(readFileSync(manifest, 'utf8')).postgresSchema;
  if (pinned !== undefined && typeof pinned !== 'string') throw new Error(`${manifest}: postgresSchema must be a string`);
  return pinned;
}

/** A target for any folder holding `prisma/schema.prisma` (tests use temp copies). */
export function targetFromDir(dir: string, name = path.basename(dir), schema = name.replace(/-/g, '_')): Target {
  if (!SCHEMA_NAME.test(schema)) {
    throw new Error(`target "${name}" does not map to a plain Postgres schema name (got "${schema}")`);
  }
  const abs = path.resolve(dir);
  return {
    name,
    schema,
    dir: abs,
    schemaFile: path.join(abs, 'prisma', 'schema.prisma'),
    migrationsDir: path.join(abs, 'prisma', 'migrations'),
  };
}

export function discoverTargets(root: string): Target[] {
  const targets: Target[] = [];
  for (const parent of TARGET_PARENTS) {
    const parentDir = path.join(root, parent);
    if (!existsSync(parentDir)) continue;
    const names = readdirSync(parentDir, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort();
    for (const name of names) {
      const dir = path.join(parentDir, name);
      if (existsSync(path.join(dir, 'prisma', 'schema.prisma'))) targets.push(targetFromDir(dir, name, postgresSchemaOf(dir)));
    }
  }
  const seen = new Map<string, Target>();
  for (const t of targets) {
    const other = seen.get(t.schema);
    if (other) throw new Error(`${other.dir} and ${t.dir} would both own Postgres schema "${t.schema}"`);
    seen.set(t.schema, t);
  }
  return targets;
}

/** Names pick from the repo's targets; Target objects (temp copies) pass through. */
export function selectTargets(root: string, wanted?: ReadonlyArray<string | Target>): Target[] {
  if (wanted && wanted.length > 0 && wanted.every((w) => typeof w !== 'string')) {
    return [...(wanted as Target[])];
  }
  const all = discoverTargets(root);
  if (!wanted || wanted.length === 0) return all;
  return wanted.map((w) => {
    if (typeof w !== 'string') return w;
    const found = all.find((t) => t.name === w || t.schema === w);
    if (!found) {
      const known = all.map((t) => t.name).join(', ') || '(none)';
      throw new Error(`unknown target "${w}"; known targets: ${known}`);
    }
    return found;
  });
}
