import { every, pruneIdempotencyKeys, type Lifecycle } from '@pay/kit';
import { OutboxRelay, pruneOutbox } from '@pay/queue';
import { reconcileBatches, startBatchWorkers } from './batch/worker';
import type { InvoicingDeps } from './deps';
import { expireDueInvoices } from './invoices/expiry';
import { reconcileRefunds } from './invoices/refunds';

/** How often refunds left PENDING by a dead request are finished. */
const REFUND_RECONCILE_INTERVAL_MS = 30_000;
/** How often batches whose job Redis may have lost are looked for. */
const BATCH_RECONCILE_INTERVAL_MS = 30_000;
/** How often expired idempotency answers are deleted. */
const HOUSEKEEPING_INTERVAL_MS = 60 * 60 * 1000;

/**
 * The invoicing service's work outside requests: invoice expiry (every EXPIRY_INTERVAL_MS, so
 * an invoice expires within about a second of `expiresAt`), the refund reconciler, the outbox
 * relay and the batch workers (large CSV batches, their e-mails) with their reconciler, and
 * housekeeping. Every part is safe in several processes at once (SKIP LOCKED, conditional
 * updates, job ids), and keeps no state of its own: a restart resumes where the database stands.
 */
export function startBackground(deps: InvoicingDeps, lifecycle?: Lifecycle) {
  const relay = new OutboxRelay({ db: deps.db, connection: deps.queueRedis, logger: deps.logger, prefix: deps.config.QUEUE_PREFIX, intervalMs: deps.config.OUTBOX_INTERVAL_MS });
  relay.start();
  const workers = startBatchWorkers(deps);
  const expiry = every('invoice-expiry', deps.config.EXPIRY_INTERVAL_MS, () => expireDueInvoices(deps), deps.logger);
  const refunds = every('refund-reconciler', REFUND_RECONCILE_INTERVAL_MS, () => reconcileRefunds(deps), deps.logger);
  const batches = every('batch-reconciler', BATCH_RECONCILE_INTERVAL_MS, () => reconcileBatches(deps, (name) => relay.queue(name)), deps.logger);
  const cleaner = every(
    'housekeeping',
    HOUSEKEEPING_INTERVAL_MS,
    async () => {
      await pruneIdempotencyKeys(deps.db, deps.clock.now());
      await pruneOutbox(deps.db, deps.clock.now());
    },
    deps.logger,
  );
  const stop = async () => {
    await Promise.all([expiry.stop(), refunds.stop(), batches.stop(), cleaner.stop()]);
    await Promise.all(workers.map((w) => w.close()));
    await relay.stop();
  };
  lifecycle?.onShutdown('background', stop);
  return { relay, workers, expiry, refunds, batches, cleaner, stop };
}
