import { OutboxRelay, pruneOutbox, Queues } from '@pay/queue';
import { every, pruneIdempotencyKeys, type Lifecycle } from '@pay/kit';
import type { InvoicingDeps } from './deps';
import { expireDueInvoices } from './invoices/expiry';
import { reconcileRefunds } from './invoices/refunds';
import { expireDueKycSessions } from './kyc/expiry';
import { RuleBasedKycProvider } from './kyc/rules';
import { reconcileKycChecks, startKycWorker } from './kyc/worker';

/** How often refunds left PENDING by a dead request are finished. */
const REFUND_RECONCILE_INTERVAL_MS = 30_000;
/** How often KYC checks whose job was lost are queued again (see reconcileKycChecks). */
const KYC_RECONCILE_INTERVAL_MS = 30_000;
/** How often expired idempotency answers and long-published outbox rows are deleted. */
const HOUSEKEEPING_INTERVAL_MS = 60 * 60 * 1000;
/** Outbox relay poll period (a commit also wakes it at once through `kickOutbox`). */
const OUTBOX_INTERVAL_MS = 250;

/** Deletes what no longer serves: idempotency answers past their 24 h, outbox rows published a week ago. */
async function housekeeping(deps: InvoicingDeps): Promise<void> {
  const now = deps.clock.now();
  await pruneIdempotencyKeys(deps.db, now);
  await pruneOutbox(deps.db, now);
}

/**
 * The invoicing service's work outside requests: invoice and KYC-session expiry (every
 * EXPIRY_INTERVAL_MS, so either expires within about a second of `expiresAt`), the outbox
 * relay and the KYC check worker with its reconciler, the refund reconciler and housekeeping.
 * Every part is safe in several processes at once (SKIP LOCKED, conditional updates, job ids),
 * and keeps no state of its own: a restart resumes where the database stands.
 */
export function startBackground(deps: InvoicingDeps, lifecycle?: Lifecycle) {
  const relay = new OutboxRelay({ db: deps.db, connection: deps.queueRedis, logger: deps.logger, prefix: deps.config.QUEUE_PREFIX, intervalMs: OUTBOX_INTERVAL_MS });
  relay.start();
  const kycWorker = startKycWorker(deps, new RuleBasedKycProvider());
  const expiry = every('invoice-expiry', deps.config.EXPIRY_INTERVAL_MS, () => expireDueInvoices(deps), deps.logger);
  const kycExpiry = every('kyc-expiry', deps.config.EXPIRY_INTERVAL_MS, () => expireDueKycSessions(deps), deps.logger);
  const kycReconciler = every('kyc-reconciler', KYC_RECONCILE_INTERVAL_MS, () => reconcileKycChecks(deps, relay.queue(Queues.kycChecks.name)), deps.logger);
  const refunds = every('refund-reconciler', REFUND_RECONCILE_INTERVAL_MS, () => reconcileRefunds(deps), deps.logger);
  const cleaner = every('housekeeping', HOUSEKEEPING_INTERVAL_MS, () => housekeeping(deps), deps.logger);
  const stop = async () => {
    await Promise.all([expiry.stop(), kycExpiry.stop(), kycReconciler.stop(), refunds.stop(), cleaner.stop()]);
    await kycWorker.close();
    await relay.stop();
  };
  lifecycle?.onShutdown('background', stop);
  return { relay, kycWorker, expiry, kycExpiry, refunds, cleaner, stop };
}
