import { checkMigrations, checkReport } from './check';
import { findRepoRoot } from './targets';

/**
 * The guard for the whole repo: fails when any packages/* or services/* schema.prisma, or a
 * stored function's .sql file, was changed without a migration. Fix with
 * `pnpm db:new <target> <migration_name>`.
 */
test('every schema.prisma and stored function file in the workspace matches its committed migrations', async () => {
  const results = await checkMigrations({ databaseUrl: process.env.DATABASE_URL });
  expect(results.length).toBeGreaterThan(0);
  expect(results.filter((r) => !r.ok).length === 0 ? [] : checkReport(results, findRepoRoot(__dirname))).toEqual([]);
});
