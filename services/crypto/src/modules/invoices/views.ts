import { toJsonNumber } from '../../shared/money';
import type { InvoiceRecord } from './store';

export type { InvoiceRecord } from './store';

export function paymentUrl(publicUrl: string, id: string): string {
  return `${publicUrl}/pay/${id}`;
}

/** The create response: exactly the fields of `CreatedInvoice` (schemas.ts, as /openapi.json documents it). */
export function createdInvoiceJson(i: InvoiceRecord, publicUrl: string) {
  return {
    id: i.id,
    amount: toJsonNumber(i.amount),
    currency: i.currency,
    network: i.network,
    address: i.address,
    status: i.status,
    expiresAt: i.expiresAt.toISOString(),
    paymentUrl: paymentUrl(publicUrl, i.id),
  };
}

/** GET, list and events: the create fields plus what happened since. */
export function invoiceJson(i: InvoiceRecord, publicUrl: string) {
  return {
    ...createdInvoiceJson(i, publicUrl),
    description: i.description,
    amountReceived: toJsonNumber(i.amountReceived),
    paidAt: i.paidAt?.toISOString() ?? null,
    createdAt: i.createdAt.toISOString(),
  };
}
