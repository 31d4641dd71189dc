import type { Clock } from '@pay/runtime';
import { recordEvent } from '@pay/webhooks';
import type { Tx } from '../../transactions';
import type { InvoiceRow } from './store';
import { invoiceEventJson } from './views';
import { invoicingEvents, type InvoicingEventKind } from '../../event-catalogue';

/** The invoice kinds of invoicing's event catalogue. */
export type InvoiceEvent = Extract<InvoicingEventKind, `invoice.${string}`>;

/**
 * Records an invoice event in the transaction of the change it reports (webhooks.events; the
 * webhook worker delivers from there). Body: `{ event, timestamp, livemode, invoice, ...extra }`,
 * as the kind's entry of ../event-catalogue.ts declares it: `invoice` is invoiceEventJson, and
 * `extra` adds siblings (the `refund` of invoice.refunded, the `attempt` of
 * invoice.payment_failed, the `review` of invoice.payment_review).
 */
export async function emitInvoiceEvent(tx: Tx, clock: Clock, i: InvoiceRow, type: InvoiceEvent, extra: Record<string, unknown> = {}): Promise<void> {
  await recordEvent(tx, {
    source: invoicingEvents.source,
    owner: { merchantId: i.merchant_id, isTest: i.is_test },
    type,
    object: { invoice: invoiceEventJson(i), ...extra },
    at: clock.now().getTime(),
  });
}
