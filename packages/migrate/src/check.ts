import { DEFAULT_DATABASE_URL, parseDatabaseUrl } from './connection';
import { diffMigrationsToSchema } from './diff';
import { findRepoRoot, selectTargets, type Target } from './targets';

export interface CheckOptions {
  databaseUrl?: string;
  targets?: ReadonlyArray<string | Target>;
  root?: string;
}

export interface CheckResult {
  target: Target;
  /** The committed migrations produce exactly schema.prisma. */
  ok: boolean;
  /** SQL a new migration would need ('' when ok). */
  missingSql: string;
}

/** Needs only a server to make shadow databases on; the database in the URL is not touched. */
export async function checkMigrations(options: CheckOptions = {}): Promise<CheckResult[]> {
  const fields = parseDatabaseUrl(options.databaseUrl ?? DEFAULT_DATABASE_URL);
  const targets = selectTargets(options.root ?? findRepoRoot(__dirname), options.targets);
  // In parallel: each target waits mostly on CREATE/DROP DATABASE for its own shadow.
  // allSettled, so a failure is reported only once every other shadow has been dropped.
  const settled = await Promise.allSettled(
    targets.map(async (target): Promise<CheckResult> => {
      const diff = await diffMigrationsToSchema(fields, target);
      return { target, ok: !diff.changed, missingSql: diff.sql };
    }),
  );
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<CheckResult>).value);
}
