import type { Clock } from '@pay/kit';
import { recordEvent } from '@pay/webhooks';
import type { Tx } from '../transactions';
import type { InvoiceRow } from './store';
import { invoiceEventJson } from './views';

export type InvoiceEvent = 'invoice.paid' | 'invoice.expired' | 'invoice.cancelled' | 'invoice.refunded' | 'invoice.payment_failed' | 'invoice.payment_review';

/**
 * Records an invoice event in the transaction of the change it reports (webhooks.events; the
 * webhook worker delivers from there). Body: `{ event, timestamp, invoice, ...extra }`, where
 * `invoice` is exactly the object the OpenAPI `webhooks` section documents (`{ id, invoiceNumber, amount, status, paidAt, metadata, customerEmail, customerPhone }`) and `extra` adds siblings (the `refund` of invoice.refunded, the `attempt` of invoice.payment_failed, the `review` of invoice.payment_review).
 */
export async function emitInvoiceEvent(tx: Tx, clock: Clock, i: InvoiceRow, type: InvoiceEvent, extra: Record<string, unknown> = {}): Promise<void> {
  await recordEvent(tx, {
    source: 'invoicing',
    owner: { merchantId: i.merchant_id, isTest: i.is_test },
    type,
    object: { invoice: invoiceEventJson(i), ...extra },
    at: clock.now().getTime(),
  });
}
