import { type InvoicingQueries } from '../../db';
import { payingAttemptOf } from '../../payments/attempts';
import type { InvoiceRow } from './store';

/**
 * decisions.md §10, the one statement of what pays an invoice that an acquirer collects and
 * that requires a receipt: the acquirer's confirmation of the payment AND an APPROVED receipt,
 * whichever comes second (the acquirer's confirmation, `modules/settlement/`, or the receipt
 * check, `receipts/check.ts`, each asks for the other half: the receipts module's
 * `hasApprovedReceipt`, or `confirmedPaymentOf` here). Neither alone pays it: a receipt
 * without a confirmation is a receipt_only review; a confirmation without a receipt leaves the
 * invoice PENDING, the payment shown (attempts, paymentMethod, payerBank), until a receipt is
 * approved or, at expiry, a receipt_missing review. The sandbox (test mode, where no acquirer
 * takes money) is paid by an approved receipt alone.
 *
 * The rule lives with the invoice, since both sides ask it; each half is read by its owner
 * (receipts by the receipts module, acquirer payments by payments/attempts.ts).
 */
export const needsReceiptAndConfirmation = (i: Pick<InvoiceRow, 'receipt_required' | 'provider'>): boolean => i.receipt_required && i.provider !== 'sandbox';

/** The acquirer's half: the payment it confirmed for the invoice's amount that went to no review (the newest), or null. */
export interface ConfirmedPayment {
  /** `invoiceId:attempt`, the key a review of this payment's money carries. */
  key: string;
  paidKopecks: bigint;
  confirmedAt: Date;
}

export async function confirmedPaymentOf(tx: InvoicingQueries, invoiceId: string): Promise<ConfirmedPayment | null> {
  const paying = await payingAttemptOf(tx, invoiceId);
  if (!paying || paying.confirmedAt === null || paying.paidKopecks === null) return null;
  return { key: `${invoiceId}:${paying.attempt}`, paidKopecks: paying.paidKopecks, confirmedAt: paying.confirmedAt };
}
