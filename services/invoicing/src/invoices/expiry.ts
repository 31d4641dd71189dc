import type { InvoicingDeps } from '../deps';
import { inTransaction } from '../transactions';
import { emitInvoiceEvent } from './events';
import { expireDue } from './store';

/** Invoices expired per transaction: short transactions, and a backlog still drains in a loop. */
export const EXPIRY_BATCH = 500;

/**
 * Expires PENDING invoices whose `expiresAt` has passed, recording `invoice.expired` for each
 * in the same transaction. Rows are claimed with FOR UPDATE SKIP LOCKED and re-checked as
 * PENDING, so several processes share the work, an invoice being paid at that moment is left
 * to its payment, and each invoice expires, and emits, exactly once. Nothing is held in
 * memory between runs: a restart picks up whatever is due. Returns how many expired.
 */
export async function expireDueInvoices(deps: Pick<InvoicingDeps, 'db' | 'clock'>): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await inTransaction(deps.db, async (tx) => {
      const now = deps.clock.now();
      const expired = await expireDue(tx, now, EXPIRY_BATCH);
      for (const invoice of expired) await emitInvoiceEvent(tx, deps.clock, invoice, 'invoice.expired');
      return expired.length;
    });
    total += n;
    if (n < EXPIRY_BATCH) return total;
  }
}
