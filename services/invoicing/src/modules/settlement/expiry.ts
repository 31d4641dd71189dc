import { money } from '@pay/money';
import type { InvoicingDeps } from '../../deps';
import { inTransaction, type Tx } from '../../transactions';
import { emitInvoiceEvent } from '../invoices/events';
import { confirmedPaymentOf, needsReceiptAndConfirmation } from '../invoices/proof';
import { dueWithOpenAcquirerPayment, expireDue, type InvoiceRow } from '../invoices/published';
import { openReview } from '../reviews/open';
import { settleDueAcquirerPayments } from '../../payments/registry';

/** Invoices expired per transaction: short transactions, and a backlog still drains in a loop. */
const EXPIRY_BATCH = 500;

/**
 * Expires PENDING invoices whose `expiresAt` has passed (after asking the acquirer about any
 * still-open payment of theirs: settleDueAcquirerPayments), recording `invoice.expired` for each
 * in the same transaction. Rows are claimed with FOR UPDATE SKIP LOCKED and re-checked as
 * PENDING, so several processes share the work, an invoice being paid at that moment is left
 * to its payment, and each invoice expires, and emits, exactly once. Nothing is held in
 * memory between runs: a restart picks up whatever is due. An invoice whose acquirer took the
 * money but whose receipt was never approved is not expired silently: see reviewMoneyWithoutReceipt.
 * Returns how many expired.
 */
export async function expireDueInvoices(deps: Pick<InvoicingDeps, 'db' | 'clock' | 'logger' | 'providers' | 'settlement'>): Promise<number> {
  // An invoice whose acquirer payment is open is asked about first: paid in time, it is PAID.
  const due = await dueWithOpenAcquirerPayment(deps.db, deps.clock.now(), EXPIRY_BATCH);
  await settleDueAcquirerPayments(deps, due);
  let total = 0;
  for (;;) {
    const n = await inTransaction(deps.db, async (tx) => {
      const now = deps.clock.now();
      const expired = await expireDue(tx, now, EXPIRY_BATCH);
      for (const invoice of expired) {
        await emitInvoiceEvent(tx, deps.clock, invoice, 'invoice.expired');
        await reviewMoneyWithoutReceipt(tx, deps, invoice);
      }
      return expired.length;
    });
    total += n;
    if (n < EXPIRY_BATCH) return total;
  }
}

/**
 * decisions.md §10: a receiptRequired invoice the acquirer collects, whose payment the acquirer
 * confirmed but for which no receipt was approved by `expiresAt`, expires with the money taken.
 * That money is put before the merchant as a `receipt_missing` review (invoice.payment_review,
 * in the expiry's transaction), to accept (the invoice becomes PAID) or refund. Once per payment
 * (the review's unique payment key).
 */
async function reviewMoneyWithoutReceipt(tx: Tx, deps: Pick<InvoicingDeps, 'clock' | 'logger'>, invoice: InvoiceRow): Promise<void> {
  if (!needsReceiptAndConfirmation(invoice)) return;
  const confirmed = await confirmedPaymentOf(tx, invoice.id);
  if (!confirmed) return;
  const amount = money(confirmed.paidKopecks.toString()).div(100).toFixed(2);
  const opened = await openReview(tx, deps.clock, invoice, {
    reason: 'receipt_missing',
    amount,
    takenAt: confirmed.confirmedAt,
    detail: `The acquirer took ${amount} ${invoice.currency}, but no receipt was approved before the invoice expired`,
    paymentKey: confirmed.key,
    receiptId: null,
  });
  if (opened) deps.logger.warn({ invoiceId: invoice.id }, 'invoice expired with a confirmed acquirer payment and no approved receipt: receipt_missing review opened');
}
