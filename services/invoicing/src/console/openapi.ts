import type { OutgoingWebhook } from '@pay/kit';
import { EVENT_DESCRIPTIONS, EventPayloads, INVOICING_EVENT_KINDS, webhookDoc } from '@pay/webhooks';

const SENT_TO = 'Sent to every console webhook subscribed to the kind, in the mode (test or live) of the event, signed with that webhook\'s secret.';

/** The OpenAPI `webhooks` section: one entry per invoicing event kind, body schema from @pay/webhooks. */
export function webhookDocs(): Record<string, OutgoingWebhook> {
  return Object.fromEntries(INVOICING_EVENT_KINDS.map((kind) => [kind, webhookDoc(EVENT_DESCRIPTIONS[kind], EventPayloads[kind], SENT_TO)]));
}
