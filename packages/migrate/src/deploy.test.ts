import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { withClient } from './connection';
import { deploy } from './deploy';
import { EngineError } from './engine';
import { discoverTargets, findRepoRoot } from './targets';
import { copyTarget, throwawayDatabase, type TargetCopy } from '../test/test-support';

const accounts = discoverTargets(findRepoRoot(__dirname)).find((t) => t.name === 'accounts')!;
const committed = readdirSync(accounts.migrationsDir, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort();

const db = throwawayDatabase('deploy');
const copies: TargetCopy[] = [];
const extraDbs = [db];

afterAll(async () => {
  for (const c of copies) c.remove();
  for (const d of extraDbs) await d.drop();
});

const query = <R extends object>(sql: string, params: unknown[] = []) =>
  withClient(db.fields, async (c) => (await c.query<R & Record<string, unknown>>(sql, params)).rows);

test('creates the database and applies the migrations inside the target schema', async () => {
  expect(committed.length).toBeGreaterThan(0);
  const [result] = await deploy({ databaseUrl: db.url, targets: ['accounts'], quiet: true });
  expect(result?.status).toBe('applied');
  expect(result?.applied).toEqual(committed);

  const tables = await query<{ table_schema: string; table_name: string }>(
    `SELECT table_schema, table_name FROM information_schema.tables
      WHERE table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1, 2`,
  );
  expect(tables).toEqual([
    { table_schema: 'accounts', table_name: '_prisma_migrations' },
    { table_schema: 'accounts', table_name: 'api_keys' },
    { table_schema: 'accounts', table_name: 'console_sessions' },
    { table_schema: 'accounts', table_name: 'merchant_brands' },
    { table_schema: 'accounts', table_name: 'merchants' },
  ]);

  // The rows `prisma migrate deploy` writes: checksum is the sha256 of migration.sql.
  const rows = await query<{ migration_name: string; checksum: string; finished: boolean; steps: number }>(
    `SELECT migration_name, checksum, finished_at IS NOT NULL AS finished, applied_steps_count AS steps
       FROM accounts._prisma_migrations ORDER BY migration_name`,
  );
  expect(rows).toEqual(
    committed.map((name) => ({
      migration_name: name,
      checksum: createHash('sha256')
        .update(readFileSync(path.join(accounts.migrationsDir, name, 'migration.sql')))
        .digest('hex'),
      finished: true,
      steps: 1,
    })),
  );
});

test('a second deploy is a no-op', async () => {
  const before = await query('SELECT * FROM accounts._prisma_migrations ORDER BY id');
  const [result] = await deploy({ databaseUrl: db.url, targets: ['accounts'], quiet: true });
  expect(result).toMatchObject({ status: 'up-to-date', applied: [] });
  expect(await query('SELECT * FROM accounts._prisma_migrations ORDER BY id')).toEqual(before);
});

test('applies only new migrations, and a script with ";" inside strings and $$ bodies stays whole', async () => {
  const copy = copyTarget(accounts, 'deploy_copy');
  copies.push(copy);
  await deploy({ databaseUrl: db.url, targets: [copy.target], quiet: true });

  const name = '29990101000000_semicolons';
  mkdirSync(path.join(copy.target.migrationsDir, name));
  writeFileSync(
    path.join(copy.target.migrationsDir, name, 'migration.sql'),
    `CREATE TABLE "semicolons" (id int);\n` +
      `COMMENT ON TABLE "semicolons" IS 'one; two';\n` +
      `DO $$ BEGIN PERFORM 1; PERFORM 2; END $$;\n`,
  );
  const [result] = await deploy({ databaseUrl: db.url, targets: [copy.target], quiet: true });
  expect(result).toMatchObject({ status: 'applied', applied: [name] });
  const [comment] = await query<{ c: string }>(`SELECT obj_description('deploy_copy.semicolons'::regclass) AS c`);
  expect(comment?.c).toBe('one; two');
});

test('a failing migration rolls back whole, fails the deploy, and blocks the next one (P3009)', async () => {
  const copy = copyTarget(accounts, 'deploy_fail');
  copies.push(copy);
  const name = '29990101000000_broken';
  mkdirSync(path.join(copy.target.migrationsDir, name));
  writeFileSync(
    path.join(copy.target.migrationsDir, name, 'migration.sql'),
    'CREATE TABLE "half_done" (id int);\nSELECT * FROM "no_such_table";\n',
  );
  const first = deploy({ databaseUrl: db.url, targets: [copy.target], quiet: true });
  await expect(first).rejects.toThrow(/deploy deploy_fail: .*no_such_table/s);
  await expect(first).rejects.toBeInstanceOf(EngineError);
  expect(await query(`SELECT to_regclass('deploy_fail.half_done') AS t`)).toEqual([{ t: null }]);
  await expect(deploy({ databaseUrl: db.url, targets: [copy.target], quiet: true })).rejects.toThrow(/P3009/);
});

test('two deploys racing on a fresh database: one applies, the other waits and finds it done', async () => {
  const fresh = throwawayDatabase('race');
  extraDbs.push(fresh);
  const run = () => deploy({ databaseUrl: fresh.url, targets: ['accounts'], quiet: true });
  const [a, b] = await Promise.all([run(), run()]);
  expect([a?.[0]?.status, b?.[0]?.status].sort()).toEqual(['applied', 'up-to-date']);
});
