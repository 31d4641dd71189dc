import { money, toJsonNumber } from '@pay/money';
import type { InvoicingQueries } from '../db';
import { attemptRowsOf, DECLINED_STATUSES } from './store/payments';

/** What other modules and the channels read of the acquirer payments (the payments module's store stays its own). */
export { attemptNoticeRowsOf, payingAttemptOf } from './store/payments';

/** The acquirer statuses that decline a payment, each naming why (DECLINED_STATUSES). */
export type DeclineReason = 'REJECTED' | 'AUTH_FAIL' | 'ATTEMPTS_EXPIRED';

/** What the merchant is told of one acquirer status: the payer may still pay, was declined, paid, or the payment closed. */
export function attemptStatus(acquirerStatus: string): 'PENDING' | 'DECLINED' | 'CONFIRMED' | 'PARTIALLY_REFUNDED' | 'REFUNDED' | 'CLOSED' {
  if (DECLINED_STATUSES.has(acquirerStatus)) return 'DECLINED';
  switch (acquirerStatus) {
    case 'CONFIRMED':
    case 'CONFIRMING':
    case 'REFUNDING':
    case 'ASYNC_REFUNDING':
      return 'CONFIRMED';
    case 'PARTIAL_REFUNDED':
      return 'PARTIALLY_REFUNDED';
    case 'REFUNDED':
      return 'REFUNDED';
    case 'CANCELED':
    case 'DEADLINE_EXPIRED':
    case 'REVERSED':
    case 'PARTIAL_REVERSED':
    case 'REVERSING':
      return 'CLOSED';
    default:
      return 'PENDING';
  }
}

/**
 * The acquirer payments of an invoice, first first (`attempts` of GET /api/v2/invoices/{id}):
 * the first is opened with the invoice, another after each decline. Empty for the sandbox.
 */
export async function attemptsOfInvoice(on: InvoicingQueries, invoiceId: string) {
  const rows = await attemptRowsOf(on, invoiceId);
  return rows.map((r) => ({
    attempt: r.attempt,
    method: r.method,
    status: attemptStatus(r.status),
    // Why a declined payment was: the acquirer's own status, which names it.
    declineReason: DECLINED_STATUSES.has(r.status) ? (r.status as DeclineReason) : null,
    amount: toJsonNumber(money(String(r.paid_kopecks ?? r.amount_kopecks)).div(100)),
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  }));
}
