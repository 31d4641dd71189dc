import { DEFAULT_DATABASE_URL, parseDatabaseUrl } from './connection';
import { diffMigrationsToSchema } from './diff';
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
  | { created: true; target: Target; folder: string; folderName: string; sql: string }
  | { created: false; target: Target };

/** Writes `prisma/migrations/<stamp>_<name>/migration.sql` with what schema.prisma adds. */
export async function createMigration(options: CreateOptions): Promise<CreateResult> {
  const fields = parseDatabaseUrl(options.databaseUrl ?? DEFAULT_DATABASE_URL);
  const [target] = selectTargets(options.root ?? findRepoRoot(__dirname), [options.target]);
  if (!target) throw new Error('no target given');
  const diff = await diffMigrationsToSchema(fields, target);
  if (!diff.changed) return { created: false, target };
  const existing = readMigrationList(target.migrationsDir).migrationDirectories.map((d) => d.path);
  const folderName = nextMigrationFolderName(existing, options.name, options.now ?? new Date());
  const folder = writeMigration(target.migrationsDir, folderName, diff.sql);
  return { created: true, target, folder, folderName, sql: diff.sql };
}
