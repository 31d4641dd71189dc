import type { OutgoingWebhook } from '@pay/kit';
import { eventEnvelope, webhookDoc } from '@pay/webhooks';
import { InvoiceDetail } from './invoices/schemas';
import { TransactionDetail } from './transactions/schemas';
import { WithdrawalDetail } from './withdrawals/schemas';
import type { CryptoEvent } from './events/events';

const SENT_TO = "Sent to the merchant's webhookUrl (PUT /api/v1/merchants/webhook), in the mode of the event, signed with the merchant's HMAC secret.";

/**
 * The body of each crypto event: `{ event, timestamp, livemode, <key>: object }` (the envelope
 * of every event), the object as the API's own GET answers it, so one schema describes both
 * (journey.test.ts checks recorded events against these).
 */
export const CryptoEventPayloads: Record<CryptoEvent, ReturnType<typeof eventEnvelope>> = {
  'transaction.confirmed': eventEnvelope('transaction.confirmed', 'transaction', TransactionDetail),
  'invoice.paid': eventEnvelope('invoice.paid', 'invoice', InvoiceDetail),
  'withdrawal.completed': eventEnvelope('withdrawal.completed', 'withdrawal', WithdrawalDetail),
  'withdrawal.failed': eventEnvelope('withdrawal.failed', 'withdrawal', WithdrawalDetail),
};

const SUMMARIES: Record<CryptoEvent, string> = {
  'transaction.confirmed': 'An incoming transfer reached its confirmations and was credited to the balance.',
  'invoice.paid': 'A crypto invoice received its full amount.',
  'withdrawal.completed': 'A withdrawal was confirmed on chain.',
  'withdrawal.failed': 'A withdrawal failed; its amount is back in the available balance.',
};

/** The crypto service's OpenAPI `webhooks` section. */
export function cryptoWebhookDocs(): Record<string, OutgoingWebhook> {
  return Object.fromEntries(Object.entries(CryptoEventPayloads).map(([kind, body]) => [kind, webhookDoc(SUMMARIES[kind as CryptoEvent], body, SENT_TO)]));
}
