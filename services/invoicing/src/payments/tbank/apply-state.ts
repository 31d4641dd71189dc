import { money } from '@pay/money';
import { ApiError } from '@pay/schemas';
import type { InvoicingDeps } from '../../deps';
import { emitInvoiceEvent } from '../../modules/invoices/events';
import { payLockedInvoice } from '../payment';
import { needsReceiptAndConfirmation, hasApprovedReceipt } from '../../modules/invoices/proof';
import { lockInvoice, recordConfirmedPayment } from '../../modules/invoices/published';
import { closeReceiptReviews, openReview, type ReviewReason } from '../../modules/reviews/open';
import { inTransaction } from '../../transactions';
import { attemptStatus } from '../attempts';
import { DECLINED_STATUSES, type AcquirerPaymentRow } from '../store/payments';
import type { TBankProvider } from './provider';
import { settleAcquirerRefunds } from './acquirer-refunds';

/** What the acquirer says of one payment: GetState's word (a notification's Status and Amount are under its Token too). */
export interface AcquirerReport {
  status: string;
  /** CONFIRMED and after: what the payment holds now (paid, less refunds), from GetState. */
  amountKopecks: number;
  payerBank: string | null;
  sbpTransactionId: string | null;
}

const REFUND_STATUSES = new Set(['PARTIAL_REFUNDED', 'REFUNDED']);
type Deps = Pick<InvoicingDeps, 'db' | 'clock' | 'logger'>;

/**
 * Applies what the acquirer reports of a payment, the same whether a notification or the
 * reconciler heard it; idempotent, so duplicates, late and out-of-order reports change nothing
 * twice. CONFIRMED pays the invoice or opens a review (confirmed); a decline sends
 * invoice.payment_failed and opens a fresh payment (declined); a refund status records
 * refunds made at the acquirer (settleAcquirerRefunds). Returns what it did, for the log.
 */
export async function applyAcquirerReport(deps: Deps, provider: TBankProvider, payment: AcquirerPaymentRow, report: AcquirerReport): Promise<string> {
  if (report.status === 'CONFIRMED') return confirmed(deps, provider, payment, report);
  if (DECLINED_STATUSES.has(report.status)) return declined(deps, provider, payment, report.status);
  const moved = await provider.payments.advance(payment, report.status, deps.clock.now());
  if (REFUND_STATUSES.has(report.status)) return settleAcquirerRefunds(deps, provider, payment, report.amountKopecks);
  return moved ? `recorded ${report.status}` : `ignored ${report.status} (payment is ${payment.status})`;
}

/**
 * The first CONFIRMED of a payment decides what its money does, in one transaction under the
 * invoice's lock: it pays a PENDING invoice of the same amount (even past expiresAt: the
 * acquirer took it before RedirectDueDate, which is expiresAt), closing receipt-only reviews,
 * unless the invoice requires a receipt and none is approved yet (invoices/proof.ts): then
 * the payment is recorded on the invoice, still PENDING, and the receipt's approval pays it;
 * anything else (another amount, an invoice already paid, cancelled, expired, or refusing the
 * payer) opens a review with invoice.payment_review, never a silent "already paid".
 */
async function confirmed(deps: Deps, provider: TBankProvider, payment: AcquirerPaymentRow, report: AcquirerReport): Promise<string> {
  return inTransaction(deps.db, async (tx) => {
    const invoice = await lockInvoice(tx, payment.invoiceId);
    const store = provider.payments.in(tx);
    const current = await store.reread(payment);
    if (current.confirmedAt) return 'already applied';
    const now = deps.clock.now();
    const paidKopecks = BigInt(report.amountKopecks);
    await store.confirm(current, { paidKopecks, payerBank: report.payerBank }, now);
    const taken = money(report.amountKopecks).div(100);
    const review = async (reason: ReviewReason, detail: string) => {
      await store.markReviewed(current, detail, now);
      await openReview(tx, deps.clock, invoice, { reason, amount: taken.toFixed(2), takenAt: now, detail, paymentKey: `${current.invoiceId}:${current.attempt}`, receiptId: null });
      deps.logger.error({ invoiceId: invoice.id, paymentId: current.paymentId, reason }, 'acquirer payment under review: the invoice did not take it');
      return `review: ${reason}`;
    };
    if (paidKopecks !== current.amountKopecks) {
      return review('amount_mismatch', `T-Bank confirmed ${taken.toFixed(2)} RUB; the invoice asked ${money(current.amountKopecks.toString()).div(100).toFixed(2)} RUB`);
    }
    if (invoice.status === 'PAID') return review('duplicate_payment', `The invoice was already paid (${invoice.paid_at?.toISOString() ?? ''}); T-Bank took ${taken.toFixed(2)} RUB again`);
    if (invoice.status === 'CANCELLED') return review('paid_after_cancel', `T-Bank took ${taken.toFixed(2)} RUB after the invoice was cancelled`);
    if (invoice.status === 'EXPIRED') return review('paid_after_expiry', `T-Bank took ${taken.toFixed(2)} RUB after the invoice expired`);
    const how = { method: current.method, payerBank: report.payerBank, sbpTransactionId: current.method === 'sbp' ? report.sbpTransactionId : null };
    if (needsReceiptAndConfirmation(invoice) && !(await hasApprovedReceipt(tx, invoice.id))) {
      // §10: the money is in, but this invoice counts once a receipt is approved too; shown meanwhile, paid by that approval.
      await recordConfirmedPayment(tx, invoice.id, how);
      return 'confirmed; awaiting the receipt';
    }
    try {
      await payLockedInvoice(tx, deps, invoice, how, { confirmedInTime: true });
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      return review('invoice_refused', `T-Bank took ${taken.toFixed(2)} RUB but the invoice refused the payment: ${err.message}`);
    }
    await closeReceiptReviews(tx, invoice.id, now);
    return 'paid';
  });
}

/**
 * A declined payment (once: the status moves once): invoice.payment_failed while the invoice
 * is PENDING, then a fresh acquirer payment, so the payer can try again with a new QR or form.
 * Opening it may fail (the acquirer unreachable): the page's "try again" and the reconciler open it later.
 */
async function declined(deps: Deps, provider: TBankProvider, payment: AcquirerPaymentRow, status: string): Promise<string> {
  const failed = await inTransaction(deps.db, async (tx) => {
    const invoice = await lockInvoice(tx, payment.invoiceId);
    const store = provider.payments.in(tx);
    const current = await store.reread(payment);
    if (!(await store.advance(current, status, deps.clock.now()))) return null;
    if (invoice.status !== 'PENDING') return null;
    await emitInvoiceEvent(tx, deps.clock, invoice, 'invoice.payment_failed', {
      attempt: { attempt: current.attempt, method: current.method, status: attemptStatus(status), acquirerStatus: status },
    });
    return invoice;
  });
  if (!failed) return `ignored ${status} (payment is ${payment.status})`;
  try {
    const next = await provider.openNextAttempt(deps.db, failed.id);
    return next ? `declined; attempt ${next.attempt} opened` : 'declined';
  } catch (err) {
    deps.logger.warn({ err, invoiceId: failed.id }, 'a fresh T-Bank payment could not be opened after a decline; the page and the reconciler try again');
    return 'declined; no fresh payment yet';
  }
}
