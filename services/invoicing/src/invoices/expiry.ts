import type { InvoicingDeps } from '../deps';
import { inTransaction } from '../transactions';
import { emitInvoiceEvent } from './events';
import { dueWithOpenAcquirerPayment, expireDue } from './store';
import { tbankProvidersOf } from '../acquirers/from-config';
import { settleDueTBankPayments } from '../acquirers/tbank/reconcile';

/** Invoices expired per transaction: short transactions, and a backlog still drains in a loop. */
export const EXPIRY_BATCH = 500;

/**
 * Expires PENDING invoices whose `expiresAt` has passed (after asking the acquirer about any
 * still-open payment of theirs: settleDueTBankPayments), recording `invoice.expired` for each
 * in the same transaction. Rows are claimed with FOR UPDATE SKIP LOCKED and re-checked as
 * PENDING, so several processes share the work, an invoice being paid at that moment is left
 * to its payment, and each invoice expires, and emits, exactly once. Nothing is held in
 * memory between runs: a restart picks up whatever is due. Returns how many expired.
 */
export async function expireDueInvoices(deps: Pick<InvoicingDeps, 'db' | 'tables' | 'clock' | 'logger' | 'providers'>): Promise<number> {
  // An invoice whose acquirer payment is open is asked about first: paid in time, it is PAID.
  const due = await dueWithOpenAcquirerPayment(deps.tables, deps.clock.now(), EXPIRY_BATCH);
  for (const provider of due.length ? tbankProvidersOf(deps.providers) : []) {
    await settleDueTBankPayments(deps, provider, due).catch((err: unknown) => deps.logger.warn({ err }, 'the acquirer could not be asked about invoices past their expiry; they expire once it answers'));
  }
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
