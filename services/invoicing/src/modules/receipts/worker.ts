import type { Queue, Worker } from 'bullmq';
import { requeueJobs, startWorker } from '@pay/queue';
import type { InvoicingDeps, ReceiptsDeps } from '../../deps';
import { checkReceipt } from './check';
import type { ReceiptReaders } from './readers';
import { pendingReceiptIdsBefore, rejectUnreadableReceipt } from './store';

/**
 * Consumes receipt checks. OCR takes a core while it runs, so one check at a time per process
 * by default (RECEIPT_WORKER_CONCURRENCY); more processes check more. A check that failed
 * every attempt (its file gone from storage, say) marks the receipt REJECTED with the reason,
 * rather than leaving it PENDING for ever.
 */
export function startReceiptWorker(deps: ReceiptsDeps, readers: ReceiptReaders): Worker {
  return startWorker({
    queue: 'receiptChecks',
    connection: deps.queueRedis,
    prefix: deps.config.QUEUE_PREFIX,
    logger: deps.logger,
    concurrency: deps.config.RECEIPT_WORKER_CONCURRENCY,
    // OCR of a large image can hold the event loop's attention for a while; keep the lock.
    options: { lockDuration: 120_000 },
    process: async ({ receiptId }) => {
      await checkReceipt(deps, readers, receiptId);
    },
    exhausted: ({ receiptId }, err) => giveUp(deps, receiptId, err.message),
  });
}

async function giveUp(deps: ReceiptsDeps, receiptId: string, why: string): Promise<void> {
  await rejectUnreadableReceipt(deps.db, receiptId, why, deps.clock.now());
}

/** Receipts PENDING longer than this without a job are given one again. */
const STALE_MS = 120_000;

/**
 * Redis keeps nothing on disk: after a Redis loss a PENDING receipt could have no job. This
 * adds one for each receipt PENDING for over two minutes; the job id is the receipt id, so a
 * receipt whose job is still queued is skipped by BullMQ.
 */
export async function reconcileReceipts(deps: Pick<InvoicingDeps, 'db' | 'clock'>, queue: Queue): Promise<number> {
  const ids = await pendingReceiptIdsBefore(deps.db, new Date(deps.clock.now().getTime() - STALE_MS));
  return requeueJobs(queue, 'receiptChecks', ids.map((id) => ({ jobId: id, data: { receiptId: id } })));
}
