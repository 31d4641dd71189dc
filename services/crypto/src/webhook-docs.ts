import { Type } from '@sinclair/typebox';
import type { OutgoingWebhook } from '@pay/kit';
import { eventEnvelope, webhookDoc } from '@pay/webhooks';
import { InvoiceDetail } from './invoices/schemas';
import { TransactionDetail } from './transactions/schemas';
import { WithdrawalDetail } from './withdrawals/schemas';
import type { CryptoEvent } from './events/events';

const SENT_TO = "Sent to the merchant's webhookUrl (PUT /api/v1/merchants/webhook), in the mode of the event, signed with the merchant's HMAC secret.";

/**
 * The body of each crypto event: `{ event, timestamp, <key>: object, livemode }`, the object as
 * the API's own GET answers it, so one schema describes both (journey.test.ts checks recorded
 * events against these).
 */
/** Additive to the documented bodies: test and live events go to the same webhookUrl, and this tells them apart. */
const livemode = { livemode: Type.Boolean({ description: 'false for an event of test mode (test key, sandbox chain), true for live mode' }) };
export const CryptoEventPayloads: Record<CryptoEvent, ReturnType<typeof eventEnvelope>> = {
  'transaction.confirmed': eventEnvelope('transaction.confirmed', 'transaction', TransactionDetail, livemode),
  'invoice.paid': eventEnvelope('invoice.paid', 'invoice', InvoiceDetail, livemode),
  'withdrawal.completed': eventEnvelope('withdrawal.completed', 'withdrawal', WithdrawalDetail, livemode),
  'withdrawal.failed': eventEnvelope('withdrawal.failed', 'withdrawal', WithdrawalDetail, livemode),
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
