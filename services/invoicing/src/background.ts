import { pruneConsoleSessions } from '@pay/accounts';
import { every, pruneIdempotencyKeys, type Lifecycle } from '@pay/kit';
import type { InvoicingDeps } from './deps';
import { expireDueInvoices } from './invoices/expiry';
import { reconcileRefunds } from './invoices/refunds';

/** How often refunds left PENDING by a dead request are finished. */
const REFUND_RECONCILE_INTERVAL_MS = 30_000;
/** How often expired idempotency answers and console sessions are deleted. */
const HOUSEKEEPING_INTERVAL_MS = 60 * 60 * 1000;

/**
 * The invoicing service's work outside requests: invoice expiry (every EXPIRY_INTERVAL_MS, so
 * an invoice expires within about a second of `expiresAt`), the refund reconciler and
 * housekeeping. Every part is safe in several processes at once (SKIP LOCKED, conditional
 * updates), and keeps no state of its own: a restart resumes where the database stands.
 */
export function startBackground(deps: InvoicingDeps, lifecycle?: Lifecycle) {
  const expiry = every('invoice-expiry', deps.config.EXPIRY_INTERVAL_MS, () => expireDueInvoices(deps), deps.logger);
  const refunds = every('refund-reconciler', REFUND_RECONCILE_INTERVAL_MS, () => reconcileRefunds(deps), deps.logger);
  const cleaner = every('housekeeping', HOUSEKEEPING_INTERVAL_MS, () => housekeeping(deps), deps.logger);
  const stop = async () => {
    await Promise.all([expiry.stop(), refunds.stop(), cleaner.stop()]);
  };
  lifecycle?.onShutdown('background', stop);
  return { expiry, refunds, cleaner, stop };
}

/**
 * Deletes what has expired: stored idempotent answers, and console sessions (a session is
 * refused once expired anyway; this keeps the table to the live ones).
 */
export async function housekeeping(deps: Pick<InvoicingDeps, 'db' | 'accounts' | 'clock'>): Promise<{ idempotencyKeys: number; consoleSessions: number }> {
  const now = deps.clock.now();
  const [idempotencyKeys, consoleSessions] = await Promise.all([pruneIdempotencyKeys(deps.db, now), pruneConsoleSessions(deps.accounts, now)]);
  return { idempotencyKeys, consoleSessions };
}
