import { randomUUID } from 'node:crypto';
import type { Owner } from '@pay/auth';
import { money } from '@pay/money';
import { ApiError } from '@pay/schemas';
import type { InvoicesDeps } from '../../deps';
import { providerFor } from '../invoices/invoices';
import { payLockedInvoice } from '../invoices/payment';
import { invoiceLabelsOf, lockInvoice, type InvoiceRow } from '../invoices/published';
import { inTransaction } from '../../transactions';
import { lockUnsettledReview, selectUnsettledReviews, settleReview, type ReviewRow } from './store';

/** The invoice's review awaiting a decision, or null (the pay page's notices, the invoice's view). */
export { unsettledReviewOf } from './store';

const noReview = (id: string) => new ApiError('INVALID_STATE', `Invoice ${id} has no payment review awaiting a decision`);

/**
 * The merchant accepts the invoice's review: the money stays. An invoice still PENDING or
 * EXPIRED becomes PAID by this decision (paidAt, invoice.paid), and its acquirer payment, if
 * still open, is closed so nobody pays it again; a PAID or CANCELLED invoice keeps its state.
 */
export async function acceptReview(deps: InvoicesDeps, owner: Owner, invoiceId: string): Promise<void> {
  const paid = await inTransaction(deps.db, async (tx) => {
    const invoice = await lockInvoice(tx, invoiceId, owner);
    const review = await lockUnsettledReview(tx, invoice.id);
    if (!review) throw noReview(invoice.id);
    if (review.status === 'REFUNDING') throw new ApiError('INVALID_STATE', `The review of invoice ${invoice.id} is being refunded; it cannot be accepted now`);
    let paidNow: InvoiceRow | null = null;
    if (invoice.status === 'PENDING' || invoice.status === 'EXPIRED') {
      paidNow = await payLockedInvoice(tx, deps, invoice, { method: invoice.payment_method, payerBank: null, sbpTransactionId: null }, { acceptedByMerchant: true });
    }
    await settleReview(tx, review.id, 'ACCEPTED', deps.clock.now());
    return paidNow;
  });
  if (!paid) return;
  // Paid by the merchant's word: the acquirer's QR or form must not take the money again.
  await providerFor(deps, owner)
    .cancelOrder({ externalOrderId: paid.external_order_id })
    .then((closed) => {
      if (!closed.ok) deps.logger.warn({ invoiceId, reason: closed.reason }, 'the acquirer payment of an invoice paid by the merchant’s decision was not closed');
    })
    .catch((err: unknown) => deps.logger.warn({ err, invoiceId }, 'the acquirer payment of an invoice paid by the merchant’s decision could not be closed; a payment on it opens a duplicate_payment review'));
}

/**
 * The merchant refunds the money of the invoice's review: the acquirer returns all that
 * payment took (Cancel of that payment, recorded first, idempotent by the review's refund id,
 * so pressing it again after a failure never refunds twice). REFUNDED when the acquirer
 * confirms; REFUNDING while it settles (asked again by pressing again). The invoice's own
 * state and refundedAmount are untouched: this money was never the invoice's. A receipt-only
 * review took no money at the acquirer: nothing to refund.
 */
export async function refundReview(deps: InvoicesDeps, owner: Owner, invoiceId: string): Promise<void> {
  const claimed = await inTransaction(deps.db, async (tx) => {
    const invoice = await lockInvoice(tx, invoiceId, owner);
    const review = await lockUnsettledReview(tx, invoice.id);
    if (!review) throw noReview(invoice.id);
    if (review.payment_id === null) {
      throw new ApiError('INVALID_STATE', `The review of invoice ${invoice.id} is a receipt only: the acquirer took no money, so there is nothing to refund. Accept it, or leave it open`);
    }
    return settleReview(tx, review.id, 'REFUNDING', deps.clock.now(), review.refund_id ?? randomUUID());
  });
  const attempt = Number(claimed.payment_id!.split(':')[1]);
  const outcome = await providerFor(deps, owner).refund({ refundId: claimed.refund_id!, externalOrderId: claimed.invoice_id, amount: money(claimed.amount), attempt });
  if (outcome.outcome === 'pending') return;
  await inTransaction(deps.db, async (tx) => {
    await lockInvoice(tx, invoiceId, owner);
    await settleReview(tx, claimed.id, outcome.outcome === 'succeeded' ? 'REFUNDED' : 'OPEN', deps.clock.now());
  });
  if (outcome.outcome === 'failed') throw new ApiError('ACQUIRER_REFUSED', `The acquirer did not refund the review’s payment: ${outcome.reason}`);
}

export async function listReviews(deps: Pick<InvoicesDeps, 'db'>, owner: Owner, q: { limit: number; offset: number }) {
  const page = await selectUnsettledReviews(deps.db, owner, q);
  // Each review with its invoice's currency and number (the invoices module's rows).
  const labels = await invoiceLabelsOf(deps.db, [...new Set(page.rows.map((r) => r.invoice_id))]);
  const rows = page.rows.flatMap((r) => {
    const label = labels.get(r.invoice_id);
    return label ? [{ ...r, currency: label.currency, invoice_number: label.invoiceNumber }] : [];
  });
  return { rows, total: page.total };
}

export type { ReviewRow };
