import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { createLogger } from '@pay/kit';
import { OutboxRelay, Queues, outboxMessage, writeOutbox } from '@pay/queue';
import { createInvoicingDb } from './db';

/**
 * The relay shares its service's pool with request bursts and the other loops. Found by the
 * doubled stack (e2e/stack-doubled.test.ts): under load, its pass failed with Prisma's default
 * 2 s wait for a connection ("Unable to start a transaction in the given time"), logged an
 * error and backed off, while every state change of the service waits up to 15 s.
 */
it('waits for a connection of a busy pool instead of failing its pass', async () => {
  const { db, close } = createInvoicingDb(process.env.DATABASE_URL!, 1);
  const connection = new Redis(process.env.REDIS_URL!, { maxRetriesPerRequest: null });
  const prefix = `test-${randomUUID()}`;
  const relay = new OutboxRelay({ db, connection, logger: createLogger('test', 'silent'), prefix });
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
    await connection.quit();
    await close();
  }
}, 30_000);
