import type pg from 'pg';
import { readFileSync } from 'node:fs';
import { EngineAdapters } from './adapters';
import {
  DEFAULT_DATABASE_URL,
  ensureDatabase,
  parseDatabaseUrl,
  quoteIdent,
  redact,
  withClient,
  type PgFields,
} from './connection';
import { NO_FILTERS, withEngine } from './engine';
import { readMigrationList } from './migrations';
import { findRepoRoot, selectTargets, type Target } from './targets';

export interface DeployOptions {
  databaseUrl?: string;
  /** Folder names from the repo, or Target objects (e.g. temp copies); default: every target. */
  targets?: ReadonlyArray<string | Target>;
  /** Repo root for target discovery; default: the workspace holding this package. */
  root?: string;
  /** No per-target lines (Jest's globalSetup). */
  quiet?: boolean;
  /** Where per-target lines go; default console.log. */
  log?: (line: string) => void;
}

export interface DeployResult {
  target: Target;
  status: 'applied' | 'up-to-date' | 'no-migrations';
  /** Folder names of the migrations this call applied, in order. */
  applied: string[];
}

// First key of pg_advisory_lock(int, int); the second is the target's schema.
const LOCK_NAMESPACE = 'pay-migrate';

export async function deploy(options: DeployOptions = {}): Promise<DeployResult[]> {
  const databaseUrl = options.databaseUrl ?? DEFAULT_DATABASE_URL;
  const fields = parseDatabaseUrl(databaseUrl);
  const targets = selectTargets(options.root ?? findRepoRoot(__dirname), options.targets);
  await ensureDatabase(fields).catch((err: unknown) => {
    throw new Error(`cannot open or create ${redact(databaseUrl)}: ${err instanceof Error ? err.message : String(err)}`, {
      cause: err,
    });
  });
  const results: DeployResult[] = [];
  // One at a time: the shared WASM instance is cheap to reuse, and errors stay attributable.
  for (const target of targets) {
    const result = await deployTarget(fields, target);
    if (!options.quiet) (options.log ?? console.log)(describeDeployResult(result));
    results.push(result);
  }
  return results;
}

export function describeDeployResult(r: DeployResult): string {
  const what =
    r.status === 'applied'
      ? `applied ${r.applied.length} (${r.applied.join(', ')})`
      : r.status === 'up-to-date'
        ? 'up to date'
        : `no migrations yet (run: create ${r.target.name} init)`;
  return `${r.target.name} [schema ${r.target.schema}]: ${what}`;
}

async function deployTarget(fields: PgFields, target: Target): Promise<DeployResult> {
  const list = readMigrationList(target.migrationsDir);
  const local = list.migrationDirectories.map((d) => d.path);
  if (local.length === 0) return { target, status: 'no-migrations', applied: [] };

  // A session lock per schema, held across the engine's work, so concurrent deploys (two test
  // runs, a deploy racing a dev server) queue instead of both applying the same migration.
  return withClient(fields, async (lock) => {
    await lock.query('SELECT pg_advisory_lock(hashtext($1), hashtext($2))', [LOCK_NAMESPACE, target.schema]);
    await lock.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(target.schema)}`);
    if (await isUpToDate(lock, target.schema, local)) return { target, status: 'up-to-date', applied: [] };

    const schemaFile = { path: target.schemaFile, content: readFileSync(target.schemaFile, 'utf8') };
    const adapters = new EngineAdapters(fields, { schema: target.schema, label: target.schema });
    const out = await withEngine(`deploy ${target.name}`, [schemaFile], adapters, (engine) =>
      engine.applyMigrations({ migrationsList: list, filters: NO_FILTERS }),
    );
    const applied = out.appliedMigrationNames;
    return { target, status: applied.length > 0 ? 'applied' : 'up-to-date', applied };
  });
}

/**
 * The fast path that keeps a repeated deploy (Jest's globalSetup) from loading the engine:
 * every local migration finished and not rolled back, and no failed one pending. Anything
 * else, including a failed migration (P3009), goes to the engine, which reports it.
 */
async function isUpToDate(client: pg.Client, schema: string, local: string[]): Promise<boolean> {
  const qualified = `${quoteIdent(schema)}._prisma_migrations`;
  const table = await client.query<{ t: string | null }>('SELECT to_regclass($1) AS t', [qualified]);
  if (!table.rows[0]?.t) return false;
  const rows = await client.query<{ migration_name: string; finished: boolean; rolled_back: boolean }>(
    `SELECT migration_name, finished_at IS NOT NULL AS finished, rolled_back_at IS NOT NULL AS rolled_back
       FROM ${qualified}`,
  );
  const done = new Set<string>();
  for (const r of rows.rows) {
    if (r.rolled_back) continue;
    if (!r.finished) return false;
    done.add(r.migration_name);
  }
  return local.every((name) => done.has(name));
}
