import { toJsonNumber } from '@pay/money';
import type { InvoicingQueries } from '../../db';
import { unsettledReviewOf, type ReviewRow } from './store';

/** The `review` object of an invoice (v2 and v1 GET) and of `invoice.payment_review`. */
export function reviewJson(r: ReviewRow, currency: string) {
  return {
    id: r.id,
    reason: r.reason,
    status: r.status,
    amount: toJsonNumber(r.amount),
    currency,
    takenAt: r.taken_at.toISOString(),
    detail: r.detail,
    createdAt: r.created_at.toISOString(),
  };
}

/** The invoice's `review` (v2 and v1 GET): the review awaiting the merchant, or null when all is well. */
export async function invoiceReviewJson(on: InvoicingQueries, invoice: { id: string; currency: string }) {
  const review = await unsettledReviewOf(on, invoice.id);
  return review ? reviewJson(review, invoice.currency) : null;
}
