import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type pg from 'pg';
import { dropDatabase, quoteIdent, withClient, type PgFields } from './connection';
import { readMigrationList } from './migrations';
import { createShadowDatabase } from './shadow';
import type { Target } from './targets';

/**
 * Stored functions: each one's current definition lives in one `.sql` file beside the module
 * that owns what it writes (any `<name>.sql` under the target's `src/`, conventionally in the
 * module's `store/` folder, so scripts/table-owners.ts counts it as the module's store). The
 * migrations are history; the files are the definitions. `create` writes the migration that
 * brings the functions the migrations leave up to the files, and `check` fails while they differ.
 *
 * Comparison is Postgres's own: the migrations are applied to a scratch database, then the
 * files are run in their place (in a transaction that is rolled back) and `pg_get_functiondef`
 * of each is compared. So the header may be written any way Postgres reads the same (quotes,
 * `CREATE` or `CREATE OR REPLACE`, comments outside the body); the body must be the same text.
 */

/** One `.sql` file: exactly one `CREATE OR REPLACE FUNCTION <name>`, named like its file. */
export interface FunctionFile {
  /** The function's name: the file's name without `.sql`. */
  name: string;
  /** Absolute path. */
  file: string;
  sql: string;
}

export type FunctionProblem =
  /** The file's definition differs from the one the migrations leave. */
  | 'changed'
  /** No migration creates the file's function. */
  | 'new'
  /** A migration creates the function but no file defines it (the next migration drops it). */
  | 'no-file';

export interface FunctionDrift {
  /** `create_withdrawal(uuid, uuid, …)` as Postgres names it. */
  function: string;
  /** The file defining it (absent for 'no-file'). */
  file?: string;
  problem: FunctionProblem;
}

export interface FunctionState {
  files: FunctionFile[];
  drifts: FunctionDrift[];
  /** What a migration must run before anything else: DROPs of replaced signatures and functions without a file. */
  dropSql: string;
  /** The changed and new files' text, in an order where a SQL function follows the ones it calls. */
  createSql: string;
}

const SKIPPED_FOLDERS = new Set(['node_modules', 'generated', 'dist', '.tools', 'migrations']);
const FUNCTION_NAME = /^[a-z_][a-z0-9_]{0,62}$/;
const HEADER = /^\s*CREATE\s+OR\s+REPLACE\s+FUNCTION\s/i;

const withoutComments = (sql: string) => sql.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/--[^\n]*/g, ' ');

/** Every stored function file of a target: the `.sql` files under its `src/`, sorted by path. */
export function functionFiles(target: Target): FunctionFile[] {
  const src = path.join(target.dir, 'src');
  if (!existsSync(src)) return [];
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const child = path.join(dir, entry.name);
      if (entry.isDirectory()) return SKIPPED_FOLDERS.has(entry.name) ? [] : walk(child);
      return entry.name.endsWith('.sql') ? [child] : [];
    });
  const files = walk(src).sort();
  const byName = new Map<string, string>();
  return files.map((file) => {
    const name = path.basename(file, '.sql');
    if (!FUNCTION_NAME.test(name)) throw new Error(`${file}: a stored function's file is named after the function (lower_snake_case.sql)`);
    const other = byName.get(name);
    if (other) throw new Error(`${file} and ${other} both define "${name}"; one file per function`);
    byName.set(name, file);
    const sql = readFileSync(file, 'utf8');
    if (!HEADER.test(withoutComments(sql))) throw new Error(`${file}: must hold one CREATE OR REPLACE FUNCTION (comments above it are fine)`);
    return { name, file, sql };
  });
}

interface Routine {
  name: string;
  /** `create_withdrawal(uuid,uuid,…)` (regprocedure: types only, unqualified on search_path). */
  signature: string;
  /** Argument names and types: a change needs DROP, CREATE OR REPLACE cannot rename. */
  identity: string;
  /** With defaults. */
  args: string;
  result: string;
  def: string;
}

const ROUTINES = `
  SELECT p.proname AS name, p.oid::regprocedure::text AS signature,
         pg_get_function_identity_arguments(p.oid) AS identity, pg_get_function_arguments(p.oid) AS args,
         coalesce(pg_get_function_result(p.oid), '') AS result, pg_get_functiondef(p.oid) AS def
    FROM pg_proc p
   WHERE p.pronamespace = $1::regnamespace AND p.prokind IN ('f', 'p')
     AND NOT EXISTS (SELECT 1 FROM pg_depend d
                      WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
   ORDER BY 1, 2`;

async function routines(client: pg.Client, schema: string): Promise<Routine[]> {
  return (await client.query<Routine>(ROUTINES, [schema])).rows;
}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * Applies each target's migrations, in the order given (deploy's: packages before services),
 * to one scratch database, each in its own schema, and compares the functions they leave with
 * the target's files. Only a server is needed; the scratch database is dropped.
 */
export async function inspectFunctions(fields: PgFields, targets: Target[]): Promise<Map<Target, FunctionState>> {
  // Read (and validate) the files first: a bad file fails before any database is made.
  const filesOf = new Map(targets.map((t) => [t, functionFiles(t)] as const));
  const database = await createShadowDatabase(fields, 'functions');
  try {
    return await withClient({ ...fields, database }, async (client) => {
      const out = new Map<Target, FunctionState>();
      for (const target of targets) {
        await applyMigrations(client, target);
        out.set(target, await compareFunctions(client, target, filesOf.get(target)!));
      }
      return out;
    });
  } finally {
    await dropDatabase(fields, database);
  }
}

async function applyMigrations(client: pg.Client, target: Target): Promise<void> {
  const schema = quoteIdent(target.schema);
  await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}; SET search_path TO ${schema}`);
  for (const m of readMigrationList(target.migrationsDir).migrationDirectories) {
    if (m.migrationFile.content.tag !== 'ok') throw new Error(`${target.name}: ${m.path}: ${m.migrationFile.content.value}`);
    try {
      await client.query(m.migrationFile.content.value);
    } catch (err) {
      throw new Error(`${target.name}: migration ${m.path} fails on a scratch database: ${messageOf(err)}`);
    }
  }
}

async function compareFunctions(client: pg.Client, target: Target, files: FunctionFile[]): Promise<FunctionState> {
  // A migration may have moved the session's search_path: the files run where deploy runs them.
  await client.query(`SET search_path TO ${quoteIdent(target.schema)}`);
  const migrated = await routines(client, target.schema);
  const fromFiles: Array<Routine & { source: FunctionFile }> = [];
  await client.query('BEGIN');
  try {
    // Bodies are checked when they run (tests), not here: a file may call one defined after it.
    await client.query('SET LOCAL check_function_bodies = off');
    for (const r of migrated) await client.query(`DROP ROUTINE ${r.signature} CASCADE`);
    for (const source of files) {
      const before = new Set((await routines(client, target.schema)).map((r) => r.signature));
      try {
        await client.query(source.sql);
      } catch (err) {
        throw new Error(`${source.file}: ${messageOf(err)}`);
      }
      const made = (await routines(client, target.schema)).filter((r) => !before.has(r.signature));
      if (made.length !== 1 || made[0]!.name !== source.name) {
        const what = made.length === 0 ? 'nothing new (does another file define the same function?)' : made.map((r) => r.signature).join(', ');
        throw new Error(`${source.file}: must create exactly one function, "${source.name}"; it created ${what}`);
      }
      fromFiles.push({ ...made[0]!, source });
    }
  } finally {
    await client.query('ROLLBACK');
  }

  const drifts: FunctionDrift[] = [];
  const drops: string[] = [];
  const creates: FunctionFile[] = [];
  for (const f of fromFiles) {
    const old = migrated.find((m) => m.signature === f.signature);
    if (old && old.def === f.def) continue;
    drifts.push({ function: f.signature, file: f.source.file, problem: old ? 'changed' : 'new' });
    // CREATE OR REPLACE cannot change the result type, rename an argument or drop a default.
    if (old && (old.identity !== f.identity || old.args !== f.args || old.result !== f.result)) drops.push(old.signature);
    creates.push(f.source);
  }
  for (const m of migrated) {
    if (fromFiles.some((f) => f.signature === m.signature)) continue;
    drops.push(m.signature);
    // Another signature of a function that has its file is that file's change, already listed.
    if (!fromFiles.some((f) => f.name === m.name)) drifts.push({ function: m.signature, problem: 'no-file' });
  }
  return {
    files,
    drifts,
    dropSql: drops.map((s) => `DROP FUNCTION ${s};\n`).join(''),
    createSql: callersLast(creates)
      .map((f) => `-- From ${path.relative(path.resolve(target.dir, '../..'), f.file)} (generated: edit that file, not this one)\n${f.sql.trimEnd()}\n`)
      .join('\n'),
  };
}

/**
 * A SQL-language body is checked when it is created, so a function another one calls is
 * created first (PL/pgSQL bodies are only parsed, but the order costs nothing there either).
 */
function callersLast(files: FunctionFile[]): FunctionFile[] {
  const out: FunctionFile[] = [];
  const visiting = new Set<string>();
  const visit = (f: FunctionFile) => {
    if (out.includes(f) || visiting.has(f.name)) return;
    visiting.add(f.name);
    const body = withoutComments(f.sql);
    for (const callee of files) {
      if (callee !== f && new RegExp(`\\b${callee.name}"?\\s*\\(`).test(body)) visit(callee);
    }
    out.push(f);
  };
  files.forEach(visit);
  return out;
}

/** One line per drift, for the CLI and the workspace test. */
export function describeDrift(d: FunctionDrift, root: string): string {
  const file = d.file ? path.relative(root, d.file) : undefined;
  switch (d.problem) {
    case 'changed':
      return `${file} differs from ${d.function} as the migrations define it`;
    case 'new':
      return `${file}: no migration creates ${d.function}`;
    case 'no-file':
      return `${d.function} is created by a migration but no .sql file defines it (the next migration drops it)`;
  }
}
