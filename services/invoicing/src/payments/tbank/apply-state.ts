import { money } from '@pay/money';
import type { InvoicingDeps } from '../../deps';
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
type Deps = Pick<InvoicingDeps, 'db' | 'clock' | 'logger' | 'settlement'>;

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
 * invoice's lock: the payment is recorded confirmed here, and the invoices' side
 * (deps.settlement, modules/settlement/) pays the invoice, leaves it awaiting its receipt, or
 * opens a review; a reviewed payment is marked so (its money is the review's, not the invoice's).
 */
async function confirmed(deps: Deps, provider: TBankProvider, payment: AcquirerPaymentRow, report: AcquirerReport): Promise<string> {
  return deps.settlement.locked(payment.invoiceId, async (tx, invoice) => {
    const store = provider.payments.in(tx);
    const current = await store.reread(payment);
    if (current.confirmedAt) return 'already applied';
    const now = deps.clock.now();
    await store.confirm(current, { paidKopecks: BigInt(report.amountKopecks), payerBank: report.payerBank }, now);
    const settled = await deps.settlement.confirmed(tx, invoice, {
      acquirer: 'T-Bank',
      asked: money(current.amountKopecks.toString()).div(100),
      taken: money(report.amountKopecks).div(100),
      takenAt: now,
      paymentKey: `${current.invoiceId}:${current.attempt}`,
      payment: { method: current.method, payerBank: report.payerBank, sbpTransactionId: current.method === 'sbp' ? report.sbpTransactionId : null },
    });
    if (settled.outcome === 'paid') return 'paid';
    if (settled.outcome === 'awaiting_receipt') return 'confirmed; awaiting the receipt';
    await store.markReviewed(current, settled.detail, now);
    deps.logger.error({ invoiceId: current.invoiceId, paymentId: current.paymentId, reason: settled.reason }, 'acquirer payment under review: the invoice did not take it');
    return `review: ${settled.reason}`;
  });
}

/**
 * A declined payment (once: the status moves once): invoice.payment_failed while the invoice
 * is PENDING, then a fresh acquirer payment, so the payer can try again with a new QR or form.
 * Opening it may fail (the acquirer unreachable): the page's "try again" and the reconciler open it later.
 */
async function declined(deps: Deps, provider: TBankProvider, payment: AcquirerPaymentRow, status: string): Promise<string> {
  const failed = await deps.settlement.locked(payment.invoiceId, async (tx, invoice) => {
    const store = provider.payments.in(tx);
    const current = await store.reread(payment);
    if (!(await store.advance(current, status, deps.clock.now()))) return false;
    return deps.settlement.declined(tx, invoice, { attempt: current.attempt, method: current.method, status: attemptStatus(status), acquirerStatus: status });
  });
  if (!failed) return `ignored ${status} (payment is ${payment.status})`;
  try {
    const next = await provider.openNextAttempt(deps.db, payment.invoiceId);
    return next ? `declined; attempt ${next.attempt} opened` : 'declined';
  } catch (err) {
    deps.logger.warn({ err, invoiceId: payment.invoiceId }, 'a fresh T-Bank payment could not be opened after a decline; the page and the reconciler try again');
    return 'declined; no fresh payment yet';
  }
}
