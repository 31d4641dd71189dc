import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { createLogger, metricsRegistry } from '@pay/kit';
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
});
