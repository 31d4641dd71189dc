import { appendFileSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { checkMigrations } from './check';
import { withClient } from './connection';
import { createMigration } from './create';
import { LOCKFILE_CONTENT } from './migrations';
import { discoverTargets, findRepoRoot } from './targets';
import { copyTarget, throwawayDatabase, type TargetCopy } from '../test/test-support';

const accounts = discoverTargets(findRepoRoot(__dirname)).find((t) => t.name === 'accounts')!;
// check and create only make shadow databases on this server; the database named is untouched.
const { url: databaseUrl, fields } = throwawayDatabase('check');
const copies: TargetCopy[] = [];
const copy = (name: string) => {
  const c = copyTarget(accounts, name);
  copies.push(c);
  return c.target;
};

afterAll(() => copies.forEach((c) => c.remove()));

const NEW_MODEL = `
model AuditNote {
  id   Int    @id @default(autoincrement())
  body String

  @@map("audit_notes")
}
`;

test('passes when the committed migrations produce schema.prisma', async () => {
  const target = copy('accounts');
  expect(await checkMigrations({ databaseUrl, targets: [target] })).toEqual([{ target, ok: true, missingSql: '', functions: [] }]);
});

test('fails and reports the target when schema.prisma changed without a migration', async () => {
  const target = copy('accounts');
  appendFileSync(target.schemaFile, NEW_MODEL);
  const [result] = await checkMigrations({ databaseUrl, targets: [target] });
  expect(result?.target).toBe(target);
  expect(result?.ok).toBe(false);
  expect(result?.missingSql).toContain('CREATE TABLE "audit_notes"');
  // Unqualified, so it lands in whatever schema the deploy connection's search_path names.
  expect(result?.missingSql).not.toMatch(/"public"|"accounts"\./);
});

test('create writes a Prisma migration folder whose SQL makes check pass', async () => {
  const target = copy('accounts');
  appendFileSync(target.schemaFile, NEW_MODEL);
  const [before] = await checkMigrations({ databaseUrl, targets: [target] });

  const res = await createMigration({ databaseUrl, target, name: 'Add audit notes' });
  if (!res.created) throw new Error('expected a migration');
  expect(res.folderName).toMatch(/^\d{14}_add_audit_notes$/);
  expect(path.dirname(res.folder)).toBe(target.migrationsDir);
  expect(readFileSync(path.join(res.folder, 'migration.sql'), 'utf8')).toBe(before?.missingSql);

  expect(await checkMigrations({ databaseUrl, targets: [target] })).toEqual([{ target, ok: true, missingSql: '', functions: [] }]);
  expect(await createMigration({ databaseUrl, target, name: 'again' })).toEqual({ created: false, target });
});

test('create on a target with no migrations writes the lockfile and an init migration', async () => {
  const target = copy('fresh_target');
  rmSync(target.migrationsDir, { recursive: true });
  expect((await checkMigrations({ databaseUrl, targets: [target] }))[0]?.ok).toBe(false);

  const res = await createMigration({ databaseUrl, target, name: 'init' });
  expect(res.created).toBe(true);
  expect(readFileSync(path.join(target.migrationsDir, 'migration_lock.toml'), 'utf8')).toBe(LOCKFILE_CONTENT);
  expect((await checkMigrations({ databaseUrl, targets: [target] }))[0]?.ok).toBe(true);
});

test('leaves no shadow database behind', async () => {
  await checkMigrations({ databaseUrl, targets: [copy('accounts')] });
  const left = await withClient({ ...fields, database: 'postgres' }, async (c) =>
    (await c.query(`SELECT datname FROM pg_database WHERE datname LIKE 'pay_migrate_shadow_%' AND datname LIKE $1`, [
      `%\\_${process.pid}\\_%`,
    ])).rows,
  );
  expect(left).toEqual([]);
});
