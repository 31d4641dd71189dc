import type { TSchema } from '@sinclair/typebox';
import type { OutgoingWebhook } from '@pay/kit';

/** The headers of every webhook request, as the OpenAPI `webhooks` sections describe them. */
export const WEBHOOK_HEADERS = {
  'Content-Type': 'application/json',
  'X-SVC-Event': 'The event kind, e.g. invoice.paid',
  'X-SVC-Signature': 'Lower-case hex HMAC-SHA256(secret, X-SVC-Timestamp + raw body). Verify before processing',
  'X-SVC-Timestamp': 'Unix time in milliseconds when this attempt was sent; refuse it if more than 5 minutes from your clock',
  'X-SVC-Delivery': 'UUID of the delivery, the same on every retry and resend: deduplicate on it',
};

/**
 * One entry of a service's OpenAPI `webhooks` section. `sentTo` says where the event goes and
 * which secret signs it; the delivery rules are the same for every event, from one worker.
 */
export function webhookDoc(summary: string, body: TSchema, sentTo: string): OutgoingWebhook {
  return {
    summary,
    description:
      `${sentTo} Timeout 10 s; any 2xx is success. ` +
      'Otherwise retried 1 min, 5 min, 15 min, 1 h and 4 h after the previous attempt; after the 6th failed attempt the delivery is failed. ' +
      'At least once: the same X-SVC-Delivery may arrive more than once.',
    body,
    headers: WEBHOOK_HEADERS,
  };
}
