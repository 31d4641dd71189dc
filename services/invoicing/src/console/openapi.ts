import type { OutgoingWebhook } from '@pay/kit';
import { EVENT_DESCRIPTIONS, EventPayloads, INVOICING_EVENT_KINDS } from '@pay/webhooks';

const HEADERS = {
  'Content-Type': 'application/json',
  'X-SVC-Event': 'The event kind, e.g. invoice.paid',
  'X-SVC-Signature': 'Lower-case hex HMAC-SHA256(webhook secret, X-SVC-Timestamp + raw body). Verify before processing',
  'X-SVC-Timestamp': 'Unix time in milliseconds when this attempt was sent; refuse it if more than 5 minutes from your clock',
  'X-SVC-Delivery': 'UUID of the delivery, the same on every retry and resend: deduplicate on it',
};

const DELIVERY =
  'Sent to every console webhook subscribed to the kind, in the mode (test or live) of the event. Timeout 10 s; any 2xx is success. ' +
  'Otherwise retried 1 min, 5 min, 15 min, 1 h and 4 h after the previous attempt; after the 6th failed attempt the delivery is failed. ' +
  'At least once: the same X-SVC-Delivery may arrive more than once.';

/** The OpenAPI `webhooks` section: one entry per invoicing event kind, body schema from @pay/webhooks. */
export function webhookDocs(): Record<string, OutgoingWebhook> {
  return Object.fromEntries(
    INVOICING_EVENT_KINDS.map((kind) => [kind, { summary: EVENT_DESCRIPTIONS[kind], description: DELIVERY, body: EventPayloads[kind], headers: HEADERS }]),
  );
}
