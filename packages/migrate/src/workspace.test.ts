import { checkMigrations } from './check';

/**
 * The guard for the whole repo: fails when any packages/* or services/* schema.prisma was
 * changed without a migration. Fix with `pnpm db:new <target> <migration_name>`.
 */
test('every schema.prisma in the workspace matches its committed migrations', async () => {
  const results = await checkMigrations({ databaseUrl: process.env.DATABASE_URL });
  expect(results.length).toBeGreaterThan(0);
  const stale = results
    .filter((r) => !r.ok)
    .map((r) => `${r.target.name} is out of date (pnpm db:new ${r.target.name} <name>); missing SQL:\n${r.missingSql}`);
  expect(stale).toEqual([]);
});
