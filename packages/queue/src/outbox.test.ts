import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { testDb } from '@pay/db/src/testing';
import { createLogger, PRUNE_BATCH } from '@pay/runtime';
import { Queues } from './jobs';
import { OUTBOX_RETENTION_MS, OutboxRelay, outboxMessage, pruneOutbox, writeOutbox } from './outbox';
import { insertOutboxRows, outboxJobIdsOf, outboxRow } from '../test';

/** A caller's client, as a service passes its own. */
const sql = testDb('queue', 3);
const connection = new Redis(process.env.REDIS_URL!, { maxRetriesPerRequest: null });
const logger = createLogger('test', 'silent');
afterAll(async () => {
  await sql.$close();
  await connection.quit();
});

const rowOf = (jobId: string) => outboxRow(sql, jobId);

describe('the outbox relay', () => {
  it('publishes a committed job once, under the row’s job id with its queue’s options, and never a rolled-back one', async () => {
    const prefix = `test-${randomUUID()}`;
    const relay = new OutboxRelay({ db: sql, connection, logger, prefix });
    const queue = new Queue(Queues.withdrawals.name, { connection, prefix });
    try {
      const committed = randomUUID();
      const rolledBack = randomUUID();
      await sql.$transaction((tx) => writeOutbox(tx, outboxMessage('withdrawals', committed, { withdrawalId: committed })));
      await sql
        .$transaction(async (tx) => {
          await writeOutbox(tx, outboxMessage('withdrawals', rolledBack, { withdrawalId: rolledBack }));
          throw new Error('roll back');
        })
        .catch(() => undefined);
      expect(await rowOf(rolledBack)).toBeUndefined();
      expect(await rowOf(committed)).toMatchObject({ queue: Queues.withdrawals.name, payload: { withdrawalId: committed }, published_at: null });

      expect(await relay.kick()).toBeGreaterThanOrEqual(1);
      const job = await queue.getJob(committed);
      expect(job?.data).toEqual({ withdrawalId: committed });
      expect(job?.opts.attempts).toBe(Queues.withdrawals.jobOptions.attempts);
      expect((await rowOf(committed))?.published_at).toBeInstanceOf(Date);

      // Published rows are not taken again: a second pass adds nothing of this test's.
      await job!.remove();
      await relay.kick();
      expect(await queue.getJob(committed)).toBeUndefined();
    } finally {
      await relay.stop();
      await queue.obliterate({ force: true });
      await queue.close();
    }
  });

  it('refuses a job its queue’s schema does not allow, before anything is written', () => {
    expect(() => outboxMessage('withdrawals', randomUUID(), { withdrawalId: 42 } as never)).toThrow(/withdrawalId/);
  });

  /**
   * The relay shares its service's pool with request bursts and the other loops. Found by the
   * doubled stack (e2e/stack-doubled.test.ts): under load, its pass failed with Prisma's default
   * 2 s wait for a connection ("Unable to start a transaction in the given time"), logged an
   * error and backed off, while every state change of the services waits up to 15 s.
   */
  it('waits for a connection of a busy pool instead of failing its pass', async () => {
    // A caller's client with one connection only.
    const db = testDb('queue', 1);
    const prefix = `test-${randomUUID()}`;
    const relay = new OutboxRelay({ db, connection, logger, prefix });
    const queue = new Queue(Queues.batchInvoices.name, { connection, prefix });
    try {
      const jobId = `batch-${randomUUID()}`;
      await writeOutbox(db, outboxMessage('batchInvoices', jobId, { batchId: randomUUID() }));
      // The pool's one connection is busy for longer than Prisma's default wait.
      let release!: () => void;
      let holding!: () => void;
      const held = new Promise<void>((r) => (holding = r));
      const busy = db.$transaction(
        () =>
          new Promise<void>((r) => {
            release = r;
            holding();
          }),
        { timeout: 30_000 },
      );
      await held;
      const pass = relay.kick();
      setTimeout(() => release(), 2_500);
      await busy;
      expect(await pass).toBeGreaterThanOrEqual(1);
      expect(await queue.getJob(jobId)).toBeDefined();
    } finally {
      await relay.stop();
      await queue.obliterate({ force: true });
      await queue.close();
      await db.$disconnect();
    }
  }, 30_000);
});

describe('pruneOutbox', () => {
  it('deletes rows published over a week ago, in batches, and keeps recent and unpublished work', async () => {
    const tag = randomUUID();
    const now = new Date();
    const ago = (ms: number) => new Date(now.getTime() - ms);
    const DAY = 24 * 3_600_000;
    const row = (jobId: string, publishedAt: Date | null) => ({ queue: tag, jobId, createdAt: ago(30 * DAY), publishedAt });
    await insertOutboxRows(sql, [
      row('published-yesterday', ago(DAY)),
      row('never-published', null),
      ...Array.from({ length: PRUNE_BATCH * 2 + 7 }, (_, i) => row(`published-long-ago-${i}`, ago(OUTBOX_RETENTION_MS + DAY))),
    ]);
    expect(await pruneOutbox(sql, now)).toBeGreaterThanOrEqual(PRUNE_BATCH * 2 + 7);
    expect(await outboxJobIdsOf(sql, tag)).toEqual(['never-published', 'published-yesterday']);
  });
});
