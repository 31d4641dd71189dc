import { randomUUID } from 'node:crypto';
import { ManualClock, PRUNE_BATCH } from '@pay/kit';
import { cryptoAppForSuite } from '../test/test-support';
import { housekeeping } from './background';

const clock = new ManualClock(Date.parse('2026-11-21T10:00:00.000Z'));
const ctx = cryptoAppForSuite({ clock });

const HOUR = 60 * 60 * 1000;
const ago = (ms: number) => new Date(clock.now().getTime() - ms);

it('prunes idempotency answers past 48 h and outbox rows published over a week ago, never unpublished work', async () => {
  const tag = randomUUID();
  const key = (name: string, createdAt: Date) =>
    ctx.deps.db.$executeRaw`INSERT INTO kit.idempotency_keys (scope, key, fingerprint, status, created_at, locked_at)
                            VALUES (${tag}, ${name}, 'f', 'done', ${createdAt}, ${createdAt})`;
  await key('expired', ago(49 * HOUR));
  await key('within-grace', ago(30 * HOUR));
  await key('fresh', ago(HOUR));
  const outbox = (name: string, createdAt: Date, publishedAt: Date | null) =>
    ctx.deps.db.$executeRaw`INSERT INTO queue.outbox (queue, job_id, payload, created_at, published_at)
                            VALUES (${tag}, ${name}, '{}'::jsonb, ${createdAt}, ${publishedAt})`;
  await outbox('published-long-ago', ago(9 * 24 * HOUR), ago(8 * 24 * HOUR));
  await outbox('published-yesterday', ago(25 * HOUR), ago(24 * HOUR));
  await outbox('never-published', ago(30 * 24 * HOUR), null);

  const pruned = await housekeeping(ctx.deps);
  expect(pruned).toEqual({ idempotencyKeys: 1, outbox: 1 });
  const keys = await ctx.deps.db.$queryRaw<{ key: string }[]>`SELECT key FROM kit.idempotency_keys WHERE scope = ${tag} ORDER BY key`;
  expect(keys.map((k) => k.key)).toEqual(['fresh', 'within-grace']);
  const rows = await ctx.deps.db.$queryRaw<{ job_id: string }[]>`SELECT job_id FROM queue.outbox WHERE queue = ${tag} ORDER BY job_id`;
  expect(rows.map((r) => r.job_id)).toEqual(['never-published', 'published-yesterday']);
});

it('deletes in batches until nothing old is left', async () => {
  const tag = randomUUID();
  const old = ago(8 * 24 * HOUR);
  await ctx.deps.db.$executeRaw`
    INSERT INTO queue.outbox (queue, job_id, payload, created_at, published_at)
    SELECT ${tag}, 'job-' || n, '{}'::jsonb, ${old}, ${old} FROM generate_series(1, ${PRUNE_BATCH * 2 + 7}) AS n`;
  await housekeeping(ctx.deps);
  const [left] = await ctx.deps.db.$queryRaw<{ n: bigint }[]>`SELECT count(*) AS n FROM queue.outbox WHERE queue = ${tag}`;
  expect(Number(left!.n)).toBe(0);
});
