import type { InvoicingQueries } from '../../db';
import { attemptNoticeRowsOf } from '../../payments/attempts';
import { DECLINED_STATUSES } from '../../payments/statuses';
import { unsettledReviewOf } from '../../modules/reviews/reviews';
import type { PaymentNotices } from './presenter';

/** What the acquirer's payments and the reviews of an invoice tell its payer (see PaymentNotices). */
export async function paymentNoticesOf(on: InvoicingQueries, invoiceId: string): Promise<PaymentNotices> {
  const [attempts, review] = await Promise.all([attemptNoticeRowsOf(on, invoiceId), unsettledReviewOf(on, invoiceId)]);
  const latest = attempts.at(-1);
  return {
    declined: attempts.some((a) => DECLINED_STATUSES.has(a.status)),
    // Declined, or a fresh payment whose Init never answered: nothing the payer can pay yet.
    needsRetry: latest !== undefined && (DECLINED_STATUSES.has(latest.status) || (latest.status === 'INIT' && latest.attempt > 1)),
    underReview: review !== null,
    // The acquirer confirmed a payment the invoice did not send to a review: taken, awaiting what else the invoice needs (its receipt).
    paymentReceived: attempts.some((a) => a.confirmed_at !== null && a.review_reason === null),
  };
}
