import { toJsonNumber } from '@pay/money';
import type { InvoiceRow } from '../store';
import { metadataJson, paymentLinkOf, paymentMethodOf } from '../views';

/** v1 statuses are the v2 names in lower case. */
export const v1Status = (i: Pick<InvoiceRow, 'status'>) => i.status.toLowerCase() as 'pending' | 'paid' | 'expired' | 'cancelled';

/** POST /api/v1/invoices: exactly the create fields. */
export function v1CreatedJson(i: InvoiceRow, publicUrl: string) {
  return {
    id: i.id,
    amount: toJsonNumber(i.amount),
    currency: i.currency,
    description: i.description,
    status: v1Status(i),
    paymentUrl: paymentLinkOf(publicUrl, i.id),
    metadata: metadataJson(i),
    livemode: !i.is_test,
    paymentMethod: paymentMethodOf(i),
    refundedAmount: toJsonNumber(i.refunded_amount),
    createdAt: i.created_at.toISOString(),
    expiresAt: i.expires_at.toISOString(),
  };
}

/** GET /api/v1/invoices/{id}: the create fields, the QR of SBP invoices, and the payment's details once paid. */
export function v1InvoiceJson(i: InvoiceRow, publicUrl: string) {
  return {
    ...v1CreatedJson(i, publicUrl),
    ...(i.qr_code !== null ? { qrCodeUrl: i.qr_code } : {}),
    ...(i.sbp_transaction_id !== null ? { sbpTransactionId: i.sbp_transaction_id } : {}),
    ...(i.payer_bank !== null ? { payerBank: i.payer_bank } : {}),
    ...(i.paid_at !== null ? { paidAt: i.paid_at.toISOString() } : {}),
  };
}
