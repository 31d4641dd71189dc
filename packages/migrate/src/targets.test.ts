import { existsSync } from 'node:fs';
import path from 'node:path';
import { nextMigrationFolderName, slugMigrationName } from './migrations';
import { discoverTargets, findRepoRoot, selectTargets, targetFromDir } from './targets';

const root = findRepoRoot(__dirname);

test('finds the workspace root and its prisma targets', () => {
  expect(existsSync(path.join(root, 'pnpm-workspace.yaml'))).toBe(true);
  const accounts = discoverTargets(root).find((t) => t.name === 'accounts');
  expect(accounts).toEqual({
    name: 'accounts',
    schema: 'accounts',
    dir: path.join(root, 'packages', 'accounts'),
    schemaFile: path.join(root, 'packages', 'accounts', 'prisma', 'schema.prisma'),
    migrationsDir: path.join(root, 'packages', 'accounts', 'prisma', 'migrations'),
  });
});

test('folder dashes become underscores in the Postgres schema name', () => {
  expect(targetFromDir('/x/services/webhook-worker').schema).toBe('webhook_worker');
  expect(() => targetFromDir('/x/Bad Name')).toThrow(/plain Postgres schema name/);
});

test("a project's package.json may pin its Postgres schema (packages/http keeps kit's)", () => {
  const http = discoverTargets(root).find((t) => t.name === 'http');
  expect(http).toMatchObject({ name: 'http', schema: 'kit', dir: path.join(root, 'packages', 'http') });
  expect(selectTargets(root, ['kit'])).toEqual([http]);
  expect(discoverTargets(root).filter((t) => t.schema === 'kit')).toHaveLength(1);
});

test('an unknown target name is refused with the known ones listed', () => {
  expect(() => selectTargets(root, ['nope'])).toThrow(/unknown target "nope"; known targets: .*accounts/);
});

test('migration folder names follow Prisma and always sort after existing ones', () => {
  const now = new Date(Date.UTC(2026, 10, 21, 9, 5, 7));
  expect(nextMigrationFolderName([], 'Add API keys!', now)).toBe('20261121090507_add_api_keys');
  // Same second as (or a clock behind) the newest folder: bump past it.
  expect(nextMigrationFolderName(['20261121090507_init'], 'next', now)).toBe('20261121090508_next');
  expect(nextMigrationFolderName(['20261231235959_future'], 'next', now)).toBe('20270101000000_next');
  expect(() => slugMigrationName('!!!')).toThrow(/no letters or digits/);
});
