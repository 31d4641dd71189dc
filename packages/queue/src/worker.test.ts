import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { createLogger, metricsRegistry, ShutdownAbort } from '@pay/runtime';
import { eventually } from '@pay/testing';
import { Queues } from './jobs';
import { startWorker } from './worker';

describe('startWorker', () => {
  it('counts job outcomes and reports its queue depth in the metrics', async () => {
    const connection = new Redis(process.env.REDIS_URL!, { maxRetriesPerRequest: null });
    const prefix = `test-${randomUUID()}`;
    const queue = new Queue(Queues.webhookWakes.name, { connection, prefix });
    const seen: string[] = [];
    const worker = startWorker({ queue: 'webhookWakes', connection, prefix, logger: createLogger('test', 'silent'), process: async (data) => void seen.push(data.reason) });
    try {
      await queue.add(Queues.webhookWakes.name, { reason: 'retry' });
      await queue.add(Queues.webhookWakes.name, { reason: 'bogus' } as never); // refused by the job schema: a failure
      await queue.add(Queues.webhookWakes.name, { reason: 'test' }, { delay: 60_000 });
      await eventually(async () => {
        const text = await metricsRegistry.metrics();
        expect(text).toMatch(/^queue_jobs_total\{queue="webhook-wakes",outcome="completed"\} [1-9]\d*$/m);
        expect(text).toMatch(/^queue_jobs_total\{queue="webhook-wakes",outcome="failed"\} [1-9]\d*$/m);
        expect(text).toMatch(/^queue_jobs\{queue="webhook-wakes",state="delayed"\} 1$/m);
      });
      expect(seen).toEqual(['retry']);
    } finally {
      await worker.close();
      await queue.obliterate({ force: true });
      await queue.close();
      connection.disconnect();
    }
    // A closed consumer no longer reports its queue.
    expect(await metricsRegistry.metrics()).not.toMatch(/^queue_jobs\{queue="webhook-wakes"/m);
  });

  it('hands a job a shutdown cut short back to the queue, without using one of its attempts', async () => {
    const connection = new Redis(process.env.REDIS_URL!, { maxRetriesPerRequest: null });
    const prefix = `test-${randomUUID()}`;
    const queue = new Queue(Queues.receiptChecks.name, { connection, prefix });
    const runs: number[] = [];
    const failures: string[] = [];
    const logger = createLogger('test', 'silent');
    // The first process is shutting down: its engine gives the job up.
    const closing = startWorker({
      queue: 'receiptChecks',
      connection,
      prefix,
      logger,
      process: async (_data, job) => {
        runs.push(job.attemptsMade);
        throw new ShutdownAbort('the OCR is closed: the process is shutting down');
      },
    });
    closing.on('failed', (_job, err) => void failures.push(err.message));
    const receiptId = randomUUID();
    try {
      const added = await queue.add(Queues.receiptChecks.name, { receiptId }, { ...Queues.receiptChecks.jobOptions, jobId: receiptId, removeOnComplete: false });
      await eventually(async () => expect(runs).toHaveLength(1));
      // It closed itself: it did not take the job again meanwhile.
      await closing.close();
      expect(runs).toEqual([0]);
      const back = (await queue.getJob(added.id!))!;
      expect(['delayed', 'waiting']).toContain(await back.getState());
      expect(back.attemptsMade).toBe(0);
      expect(failures).toEqual([]);

      // Another process takes it as it was, and finishes it.
      const next = startWorker({ queue: 'receiptChecks', connection, prefix, logger, process: async (_data, job) => void runs.push(job.attemptsMade) });
      try {
        await eventually(async () => expect(await (await queue.getJob(added.id!))!.getState()).toBe('completed'));
        expect(runs).toEqual([0, 0]);
      } finally {
        await next.close();
      }
    } finally {
      await closing.close();
      await queue.obliterate({ force: true });
      await queue.close();
      connection.disconnect();
    }
  });

  it('settles a job its last attempt failed through `exhausted`, after retrying the earlier ones', async () => {
    const connection = new Redis(process.env.REDIS_URL!, { maxRetriesPerRequest: null });
    const prefix = `test-${randomUUID()}`;
    const queue = new Queue(Queues.receiptChecks.name, { connection, prefix });
    const runs: number[] = [];
    const settled: { receiptId: string; message: string }[] = [];
    const worker = startWorker({
      queue: 'receiptChecks',
      connection,
      prefix,
      logger: createLogger('test', 'silent'),
      process: async (_data, job) => {
        runs.push(job.attemptsMade);
        throw new Error('the file is gone from storage');
      },
      exhausted: async ({ receiptId }, err) => void settled.push({ receiptId, message: err.message }),
    });
    const receiptId = randomUUID();
    try {
      await queue.add(Queues.receiptChecks.name, { receiptId }, { attempts: 2, backoff: { type: 'fixed', delay: 10 }, jobId: receiptId });
      await eventually(async () => expect(await (await queue.getJob(receiptId))?.getState()).toBe('completed'));
      expect(runs).toEqual([0, 1]);
      expect(settled).toEqual([{ receiptId, message: 'the file is gone from storage' }]);
    } finally {
      await worker.close();
      await queue.obliterate({ force: true });
      await queue.close();
      connection.disconnect();
    }
  });
});

