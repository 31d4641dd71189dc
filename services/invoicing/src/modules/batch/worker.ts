import type { Queue, Worker } from 'bullmq';
import { Queues, requeueJobs, startWorker } from '@pay/queue';
import type { Lifecycle } from '@pay/runtime';
import type { BatchDeps } from '../../deps';
import { drawQrCodesOf, openBatches, processBatch } from './batches';
import { batchesWithUnsentEmails, sendBatchEmails } from './emails';

/** The batch queues' consumers: writing large batches, and sending their e-mails. */
export function startBatchWorkers(deps: BatchDeps, lifecycle?: Lifecycle): Worker[] {
  const common = { connection: deps.queueRedis, prefix: deps.config.QUEUE_PREFIX, logger: deps.logger, lifecycle };
  return [
    startWorker({ ...common, queue: 'batchInvoices', concurrency: 2, process: ({ batchId }) => processBatch(deps, batchId) }),
    startWorker({
      ...common,
      queue: 'batchEmails',
      concurrency: 2,
      process: async ({ batchId }) => {
        try {
          await sendBatchEmails(deps, batchId);
        } finally {
          // After the links are out (or this pass's failures recorded): see drawQrCodesOf.
          await drawQrCodesOf(deps, batchId);
        }
      },
    }),
  ];
}

const readd = (queue: Queue, key: 'batchInvoices' | 'batchEmails', prefix: string, batchIds: string[]) =>
  requeueJobs(queue, key, batchIds.map((batchId) => ({ jobId: `${prefix}${batchId}`, data: { batchId } })));

/**
 * Redis keeps nothing on disk: a batch left `processing`, or e-mails never tried, get their
 * job again (same job id as the outbox gave it, so one still queued is not doubled).
 */
export async function reconcileBatches(deps: BatchDeps, queue: (name: string) => Queue): Promise<number> {
  const [batches, emails] = await Promise.all([openBatches(deps), batchesWithUnsentEmails(deps)]);
  return (
    (await readd(queue(Queues.batchInvoices.name), 'batchInvoices', 'batch-', batches)) +
    (await readd(queue(Queues.batchEmails.name), 'batchEmails', 'batch-emails-', emails))
  );
}
