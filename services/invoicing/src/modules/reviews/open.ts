import type { Clock } from '@pay/runtime';
import { emitInvoiceEvent } from '../invoices/events';
import type { InvoiceRow } from '../invoices/published';
import type { Tx } from '../../transactions';
import { insertReview, type NewReview } from './store';

/** What the acquirers settle of reviews besides opening one: a receipt_only review closes when the acquirer's confirmation pays the invoice. */
export { closeReceiptReviews, type ReviewReason } from './store';
import { reviewJson } from './views';

/**
 * Opens a review of money the invoice did not simply take (in the caller's transaction, under
 * the invoice's lock) and records `invoice.payment_review` with it, once: a second report of
 * the same payment or receipt finds the review there and opens nothing. Returns whether it opened one.
 */
export async function openReview(tx: Tx, clock: Clock, invoice: InvoiceRow, r: Omit<NewReview, 'invoiceId' | 'merchantId' | 'isTest'>): Promise<boolean> {
  const review = await insertReview(tx, { ...r, invoiceId: invoice.id, merchantId: invoice.merchant_id, isTest: invoice.is_test }, clock.now());
  if (!review) return false;
  await emitInvoiceEvent(tx, clock, invoice, 'invoice.payment_review', { review: reviewJson(review, invoice.currency) });
  return true;
}
