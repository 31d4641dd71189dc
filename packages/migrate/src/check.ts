import { DEFAULT_DATABASE_URL, parseDatabaseUrl } from './connection';
import { diffMigrationsToSchema } from './diff';
import { describeDrift, inspectFunctions, type FunctionDrift } from './functions';
import { findRepoRoot, selectTargets, type Target } from './targets';

export interface CheckOptions {
  databaseUrl?: string;
  targets?: ReadonlyArray<string | Target>;
  root?: string;
}

export interface CheckResult {
  target: Target;
  /** The committed migrations produce exactly schema.prisma and the stored function files. */
  ok: boolean;
  /** SQL a new migration would need for schema.prisma ('' when it matches). */
  missingSql: string;
  /** Stored function files that differ from what the migrations define (empty when they match). */
  functions: FunctionDrift[];
}

/** Needs only a server to make shadow and scratch databases on; the database in the URL is not touched. */
export async function checkMigrations(options: CheckOptions = {}): Promise<CheckResult[]> {
  const fields = parseDatabaseUrl(options.databaseUrl ?? DEFAULT_DATABASE_URL);
  const targets = selectTargets(options.root ?? findRepoRoot(__dirname), options.targets);
  // In parallel: each target waits mostly on CREATE/DROP DATABASE for its own shadow, and the
  // stored functions on one scratch database for every target.
  // allSettled, so a failure is reported only once every other shadow has been dropped.
  const [functions, ...settled] = await Promise.allSettled([
    inspectFunctions(fields, targets),
    ...targets.map((target) => diffMigrationsToSchema(fields, target)),
  ]);
  const failed = [functions, ...settled].find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) throw failed.reason;
  const states = (functions as PromiseFulfilledResult<Awaited<ReturnType<typeof inspectFunctions>>>).value;
  return targets.map((target, i) => {
    const diff = (settled[i] as PromiseFulfilledResult<Awaited<ReturnType<typeof diffMigrationsToSchema>>>).value;
    const drifts = states.get(target)?.drifts ?? [];
    return { target, ok: !diff.changed && drifts.length === 0, missingSql: diff.sql, functions: drifts };
  });
}

/** What `check` prints: a line per target, then for each one out of date what differs and what to run. */
export function checkReport(results: CheckResult[], root: string): string[] {
  const lines = results.filter((r) => r.ok).map((r) => `${r.target.name}: OK`);
  for (const r of results.filter((r) => !r.ok)) {
    const run = `pnpm db:new ${r.target.name} <migration_name>`;
    if (r.missingSql) {
      lines.push('', `${r.target.name}: OUT OF DATE: schema.prisma has changes no migration creates.`);
      lines.push(`Missing SQL (run: ${run}):`, '', r.missingSql.trimEnd());
    }
    if (r.functions.length > 0) {
      lines.push('', `${r.target.name}: OUT OF DATE: stored function files differ from what the migrations define.`);
      for (const d of r.functions) lines.push(`  ${describeDrift(d, root)}`);
      lines.push(`Run: ${run} (it writes the migration from the files; never copy a body into a migration by hand)`);
    }
  }
  return lines;
}
