import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { checkMigrations, checkReport } from './check';
import { createMigration } from './create';
import { functionFiles } from './functions';
import { discoverTargets, findRepoRoot, type Target } from './targets';
import { copyTarget, throwawayDatabase, type TargetCopy } from '../test/test-support';

// Stored functions: each one's definition is its .sql file under src/; check compares the files
// with what the migrations leave on a scratch database, and create writes the migration.
const root = findRepoRoot(__dirname);
const targets = discoverTargets(root);
const webhooks = targets.find((t) => t.name === 'webhooks')!;
const queue = targets.find((t) => t.name === 'queue')!;
const { url: databaseUrl } = throwawayDatabase('functions');
const copies: TargetCopy[] = [];
const copy = (source: Target) => {
  const c = copyTarget(source, source.name);
  copies.push(c);
  return c.target;
};
afterAll(() => copies.forEach((c) => c.remove()));

const fileOf = (target: Target, name: string) => functionFiles(target).find((f) => f.name === name)!.file;
const edit = (file: string, from: string, to: string) => {
  const text = readFileSync(file, 'utf8');
  expect(text).toContain(from);
  writeFileSync(file, text.replace(from, to));
};

test('the repo keeps its functions in files: the ones its migrations define', () => {
  expect(functionFiles(webhooks).map((f) => path.relative(root, f.file))).toEqual(['packages/webhooks/src/store/notify_webhook_events.sql']);
  expect(functionFiles(queue).map((f) => path.relative(root, f.file))).toEqual(['packages/queue/src/store/enqueue_outbox.sql']);
});

test('a function file edited without a migration fails check, which says what to run; create then makes it pass', async () => {
  const target = copy(webhooks);
  const file = fileOf(target, 'notify_webhook_events');
  expect(await checkMigrations({ databaseUrl, targets: [target] })).toEqual([{ target, ok: true, missingSql: '', functions: [] }]);

  edit(file, "pg_notify('webhooks_events', '')", "pg_notify('webhooks_events', 'changed')");
  const stale = await checkMigrations({ databaseUrl, targets: [target] });
  expect(stale).toEqual([{ target, ok: false, missingSql: '', functions: [{ function: 'notify_webhook_events()', file, problem: 'changed' }] }]);
  const report = checkReport(stale, path.dirname(target.dir)).join('\n');
  expect(report).toContain('webhooks: OUT OF DATE: stored function files differ');
  expect(report).toContain('webhooks/src/store/notify_webhook_events.sql differs from notify_webhook_events()');
  expect(report).toContain('Run: pnpm db:new webhooks <migration_name>');

  const res = await createMigration({ databaseUrl, target, name: 'notify changed' });
  if (!res.created) throw new Error('expected a migration');
  // The file's text, as is: nobody copies a body by hand.
  expect(res.sql).toContain(readFileSync(file, 'utf8').trimEnd());
  expect(res.sql).not.toContain('DROP FUNCTION');
  expect(await checkMigrations({ databaseUrl, targets: [target] })).toEqual([{ target, ok: true, missingSql: '', functions: [] }]);
  expect(await createMigration({ databaseUrl, target, name: 'again' })).toEqual({ created: false, target });
});

test('a changed signature is dropped first; a new file is created; a deleted file is dropped', async () => {
  const target = copy(queue);
  const file = fileOf(target, 'enqueue_outbox');
  edit(file, 'p_payload jsonb)', 'p_payload jsonb, p_created_at timestamptz)');
  const added = path.join(path.dirname(file), 'outbox_pending.sql');
  writeFileSync(added, `CREATE OR REPLACE FUNCTION outbox_pending() RETURNS bigint LANGUAGE sql STABLE AS $$
  SELECT 0::bigint;
$$;
`);
  const [stale] = await checkMigrations({ databaseUrl, targets: [target] });
  expect(stale?.functions).toEqual([
    { function: 'enqueue_outbox(text,text,jsonb,timestamp with time zone)', file, problem: 'new' },
    { function: 'outbox_pending()', file: added, problem: 'new' },
  ]);

  const res = await createMigration({ databaseUrl, target, name: 'outbox functions' });
  if (!res.created) throw new Error('expected a migration');
  // The old signature would stay beside the new one as an overload: it is dropped first.
  expect(res.sql.indexOf('DROP FUNCTION enqueue_outbox(text,text,jsonb);')).toBe(0);
  expect((await checkMigrations({ databaseUrl, targets: [target] }))[0]?.ok).toBe(true);

  rmSync(added);
  const [orphan] = await checkMigrations({ databaseUrl, targets: [target] });
  expect(orphan?.functions).toEqual([{ function: 'outbox_pending()', problem: 'no-file' }]);
  const dropped = await createMigration({ databaseUrl, target, name: 'drop outbox_pending' });
  expect(dropped.created && dropped.sql).toBe('DROP FUNCTION outbox_pending();\n');
  expect((await checkMigrations({ databaseUrl, targets: [target] }))[0]?.ok).toBe(true);
});

test('a file must define the one function it is named after', async () => {
  const target = copy(webhooks);
  const file = fileOf(target, 'notify_webhook_events');
  writeFileSync(path.join(path.dirname(file), 'other_name.sql'), readFileSync(file, 'utf8').replace('notify_webhook_events', 'something_else'));
  await expect(checkMigrations({ databaseUrl, targets: [target] })).rejects.toThrow(/other_name\.sql: must create exactly one function, "other_name"; it created something_else\(\)/);
  writeFileSync(path.join(path.dirname(file), 'other_name.sql'), 'SELECT 1;');
  await expect(checkMigrations({ databaseUrl, targets: [target] })).rejects.toThrow(/other_name\.sql: must hold one CREATE OR REPLACE FUNCTION/);
});
