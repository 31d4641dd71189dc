import { randomUUID } from 'node:crypto';
import { money } from '@pay/money';
import type { InvoicingDeps } from '../../deps';
import type { AcquirerPaymentRow } from '../store/payments';
import type { TBankProvider } from './provider';

/** A refund of ours is in flight for the payment: the difference may be it, so the report is not taken now (the acquirer sends it again). */
export class RefundInFlight extends Error {
  constructor(paymentId: string) {
    super(`a refund of T-Bank payment ${paymentId} sent from here is not answered yet; the acquirer's refund status is taken once it is`);
    this.name = 'RefundInFlight';
  }
}

/**
 * Refunds made at the acquirer outside this service (the merchant in T-Bank's own account),
 * learnt from a REFUNDED or PARTIAL_REFUNDED report: the acquirer has refunded (paid − what
 * the payment holds now, GetState's Amount) in all; what this service does not know of is
 * recorded, once, under the invoice's lock, as a SUCCEEDED refund (acquirer_refunds here, and
 * through deps.settlement the invoice's refunds, refundedAmount, invoice.refunded). While a
 * refund of ours is unanswered the difference may be that one: RefundInFlight, so the
 * notification is not acknowledged.
 */
export async function settleAcquirerRefunds(deps: Pick<InvoicingDeps, 'clock' | 'settlement'>, provider: TBankProvider, payment: AcquirerPaymentRow, remainingKopecks: number): Promise<string> {
  if (!payment.paymentId || !Number.isFinite(remainingKopecks)) return 'refund status recorded';
  const paymentId = payment.paymentId;
  return deps.settlement.locked(payment.invoiceId, async (tx, invoice) => {
    const store = provider.payments.in(tx);
    const current = await store.reread(payment);
    // A payment under review is the review's to refund; the invoice's money is another payment's.
    if (current.reviewReason !== null || current.confirmedAt === null) return 'refund status recorded (not the invoice’s payment)';
    const refundedThere = (current.paidKopecks ?? current.amountKopecks) - BigInt(remainingKopecks);
    const known = await store.refundsKnown(paymentId);
    const unknown = refundedThere - known.succeededKopecks;
    if (unknown <= 0n) return 'refunds known';
    if (known.inFlight > 0) throw new RefundInFlight(paymentId);
    const refundId = await deps.settlement.refundedElsewhere(tx, invoice, money(unknown.toString()).div(100), 'Refunded in T-Bank’s own account, outside this service');
    await store.recordExternalRefund({ refundId: refundId ?? randomUUID(), invoiceId: invoice.id, paymentId, amountKopecks: unknown }, deps.clock.now());
    return `refund made at T-Bank recorded: ${unknown} kopecks`;
  });
}
