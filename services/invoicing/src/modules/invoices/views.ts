import { RawJson } from '@pay/http';
import { money, toJsonNumber } from '@pay/money';
import type { CreatedInvoiceRow, InvoiceRow, InvoiceWithCustomer } from './store';

/** The hosted payment page of an invoice. */
export function paymentLinkOf(publicUrl: string, id: string): string {
  return `${publicUrl}/pay/${id}`;
}

/** `metadata` exactly as the merchant sent it (its stored text), `{}` when none was (the API: "returned as given"). */
export function metadataJson(i: Pick<InvoiceRow, 'metadata'>): RawJson | Record<string, never> {
  if (i.metadata !== null && typeof i.metadata !== 'string') throw new Error('invoice metadata read as parsed JSON: select the row through invoices/store.ts');
  return i.metadata === null ? {} : new RawJson(i.metadata);
}

/** A KYC session bound to the invoice, or the customer's own KYC, is approved. */
export function isKycVerified(i: InvoiceWithCustomer): boolean {
  return i.kyc_verified || i.c_kyc_status === 'VERIFIED';
}

/**
 * How the invoice was paid once it is (the sandbox may pay a card invoice by SBP), or once the
 * acquirer confirmed the payment of one still awaiting its receipt; before that, the method it
 * was created for.
 */
export const paymentMethodOf = (i: Pick<InvoiceRow, 'paid_method' | 'payment_method'>) => i.paid_method ?? i.payment_method;

/**
 * What every invoice object tells, in the API (v1 and v2) and in events alike: its mode, how
 * it is (or was) paid, the payer's bank once known, and what has been refunded.
 */
export function paymentFactsJson(i: InvoiceRow) {
  return {
    livemode: !i.is_test,
    paymentMethod: paymentMethodOf(i),
    payerBank: i.payer_bank,
    refundedAmount: toJsonNumber(i.refunded_amount),
  };
}

/** The fields of every v2 view; SBP invoices add their QR, card invoices have none. */
function commonJson(i: InvoiceRow, publicUrl: string, kycVerified: boolean) {
  return {
    id: i.id,
    invoiceNumber: i.invoice_number,
    amount: toJsonNumber(i.amount),
    currency: i.currency,
    description: i.description,
    status: i.status,
    ...paymentFactsJson(i),
    expiresAt: i.expires_at.toISOString(),
    createdAt: i.created_at.toISOString(),
    ...(i.qr_payload !== null ? { qrCode: i.qr_code, qrPayload: i.qr_payload } : {}),
    externalOrderId: i.external_order_id,
    kycRequired: i.kyc_required,
    kycVerified,
    paymentLink: paymentLinkOf(publicUrl, i.id),
  };
}

const originalPaymentUrlOf = (i: InvoiceRow) => (i.original_payment_url !== null ? { originalPaymentUrl: i.original_payment_url } : {});

/** POST /api/v2/invoices: `paymentMethod` and `receiptRequired`; `customer` is always null here. */
export function createdInvoiceJson(i: CreatedInvoiceRow, publicUrl: string) {
  return {
    ...commonJson(i, publicUrl, i.kyc_verified || i.customer_kyc_verified),
    receiptRequired: i.receipt_required,
    ...originalPaymentUrlOf(i),
    customer: null,
  };
}

/** GET /api/v2/invoices: without receiptRequired, customer, customerPhone, originalPaymentUrl. */
export function invoiceListItemJson(i: InvoiceWithCustomer, publicUrl: string) {
  return {
    ...commonJson(i, publicUrl, isKycVerified(i)),
    customerEmail: i.customer_email,
    customerName: i.customer_name,
    paidAt: i.paid_at?.toISOString() ?? null,
  };
}

/** GET /api/v2/invoices/{id}: every field, with the customer. */
export function invoiceJson(i: InvoiceWithCustomer, publicUrl: string) {
  return {
    ...invoiceListItemJson(i, publicUrl),
    customerPhone: i.customer_phone,
    sbpTransactionId: i.sbp_transaction_id,
    receiptRequired: i.receipt_required,
    ...originalPaymentUrlOf(i),
    customer: i.c_id !== null ? { id: i.c_id, fullName: i.c_full_name, email: i.c_email, kycStatus: i.c_kyc_status! } : null,
  };
}

/**
 * The `invoice` object of every invoice event (`invoiceObject` of event-objects.ts, the OpenAPI
 * `webhooks` section): amount in `currency`, `metadata` as given (`{}` when none was).
 */
export function invoiceEventJson(i: InvoiceRow) {
  return {
    id: i.id,
    invoiceNumber: i.invoice_number,
    amount: Number(money(i.amount).toFixed()),
    currency: i.currency,
    livemode: !i.is_test,
    status: i.status,
    paymentMethod: paymentMethodOf(i),
    payerBank: i.payer_bank,
    refundedAmount: Number(money(i.refunded_amount).toFixed()),
    paidAt: i.paid_at?.toISOString() ?? null,
    metadata: metadataJson(i),
    customerEmail: i.customer_email,
    customerPhone: i.customer_phone,
  };
}
