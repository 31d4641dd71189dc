import { DEFAULT_DATABASE_URL, parseDatabaseUrl } from './connection';
import { diffMigrationsToSchema } from './diff';
import { inspectFunctions, type FunctionDrift } from './functions';
import { nextMigrationFolderName, readMigrationList, writeMigration } from './migrations';
import { findRepoRoot, selectTargets, type Target } from './targets';

export interface CreateOptions {
  databaseUrl?: string;
  /** Folder name from the repo (e.g. `accounts`) or a Target object. */
  target: string | Target;
  /** Free text; slugged like `prisma migrate dev --name`. */
  name: string;
  root?: string;
  /** Clock for the folder timestamp (tests). */
  now?: Date;
}

export type CreateResult =
  | { created: true; target: Target; folder: string; folderName: string; sql: string; functions: FunctionDrift[] }
  | { created: false; target: Target };

/**
 * Writes `prisma/migrations/<stamp>_<name>/migration.sql` with what schema.prisma adds and
 * what the stored function files change: first the DROPs of functions whose signature changed
 * or whose file is gone, then the schema's SQL, then each changed file's text.
 */
export async function createMigration(options: CreateOptions): Promise<CreateResult> {
  const fields = parseDatabaseUrl(options.databaseUrl ?? DEFAULT_DATABASE_URL);
  const [target] = selectTargets(options.root ?? findRepoRoot(__dirname), [options.target]);
  if (!target) throw new Error('no target given');
  const [diff, states] = await Promise.all([diffMigrationsToSchema(fields, target), inspectFunctions(fields, [target])]);
  const functions = states.get(target)!;
  if (!diff.changed && functions.drifts.length === 0) return { created: false, target };
  // Prisma's part is kept byte for byte; the functions' parts go around it.
  const sql = [functions.dropSql, diff.sql, functions.createSql].filter((s) => s.trim() !== '').join('\n');
  const existing = readMigrationList(target.migrationsDir).migrationDirectories.map((d) => d.path);
  const folderName = nextMigrationFolderName(existing, options.name, options.now ?? new Date());
  const folder = writeMigration(target.migrationsDir, folderName, sql);
  return { created: true, target, folder, folderName, sql, functions: functions.drifts };
}
