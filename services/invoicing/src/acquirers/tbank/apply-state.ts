import { ApiError } from '@pay/schemas';
import type { InvoicingDeps } from '../../deps';
import { payInvoice } from '../../invoices/payment';
import type { AcquirerPaymentRow } from './payments-store';
import type { TBankProvider } from './provider';

/** What the acquirer says of one payment, from a notification or from GetState. */
export interface AcquirerReport {
  status: string;
  amountKopecks: number;
  payerBank: string | null;
  sbpTransactionId: string | null;
}

/**
 * Applies what the acquirer reports of a payment, the same whether a notification or the
 * reconciler heard it; idempotent, so duplicates, late and out-of-order reports change nothing
 * twice. CONFIRMED pays the invoice through `payInvoice` (one `invoice.paid`, whoever comes
 * first; the second finds it PAID) unless the amount differs from the invoice's or the invoice
 * can no longer take it: then the payment is flagged for review, never paid. Other statuses are
 * recorded on the acquirer payment. Returns what it did, for the notification log.
 */
export async function applyAcquirerReport(deps: Pick<InvoicingDeps, 'db' | 'clock' | 'logger'>, provider: TBankProvider, payment: AcquirerPaymentRow, report: AcquirerReport): Promise<string> {
  const now = deps.clock.now();
  const ids = { invoiceId: payment.invoiceId, paymentId: payment.paymentId, status: report.status };
  if (report.status === 'CONFIRMED') {
    if (BigInt(report.amountKopecks) !== payment.amountKopecks) {
      const reason = `T-Bank reports ${report.amountKopecks} kopecks paid; the invoice asked ${payment.amountKopecks}`;
      await provider.payments.flag(payment.invoiceId, reason, now);
      await provider.payments.advance(payment, 'CONFIRMED', now);
      deps.logger.error({ ...ids, reason }, 'acquirer payment flagged for review: amount differs from the invoice; not paid');
      return 'flagged: amount differs';
    }
    let outcome = 'paid';
    try {
      await payInvoice(deps, { id: payment.invoiceId }, { method: payment.method, payerBank: report.payerBank, sbpTransactionId: payment.method === 'sbp' ? report.sbpTransactionId : null });
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      if (err.code === 'INVOICE_ALREADY_PAID') {
        outcome = 'already paid';
      } else {
        // Money was taken for an invoice that cannot take it (expired, cancelled, blocked, KYC): a person decides (refund).
        await provider.payments.flag(payment.invoiceId, `paid at T-Bank but the invoice refused the payment: ${err.message}`, now);
        deps.logger.error({ ...ids, refusal: err.code }, 'acquirer payment flagged for review: the invoice refused it');
        outcome = `flagged: ${err.code}`;
      }
    }
    await provider.payments.advance(payment, 'CONFIRMED', now);
    return outcome;
  }
  const moved = await provider.payments.advance(payment, report.status, now);
  return moved ? `recorded ${report.status}` : `ignored ${report.status} (payment is ${payment.status})`;
}
