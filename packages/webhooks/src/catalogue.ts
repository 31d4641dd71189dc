import { Type, type TObject, type TSchema } from '@sinclair/typebox';
import type { OutgoingWebhook } from '@pay/http';
import { envelopeOf, registerEventPayloads, type EventSource } from './events';

/**
 * `livemode` of every event, of both services: recordEvent writes it from the event's mode,
 * so no event (a kind added later included) can leave it out, and a receiver can refuse test
 * events at a live endpoint (@pay/webhook-receiver does unless told to accept them).
 */
export const Livemode = Type.Boolean({ description: 'false for an event of test mode (a test key, the sandbox), true for live mode' });

/**
 * `{ event, timestamp, livemode, id, type, createdAt, source, ...fields }`: the envelope of
 * every event around the object(s) that changed, e.g. `{ invoice }`, or `{ invoice, refund }`
 * for invoice.refunded. `event`, `timestamp` and the object are the spec's; the others are
 * additions (issue 32) written by recordEvent for every event, so no kind can leave them out:
 * `id` (the event's, the same on every delivery, retry, resend and replay of it), `type` (=
 * `event`, the name other platforms use), `createdAt` (`timestamp` as ISO 8601) and `source`,
 * the family that tells crypto's `invoice.paid` from invoicing's.
 */
export function eventEnvelope(source: EventSource, kind: string, fields: Record<string, TSchema>): TObject {
  return Type.Object(
    {
      event: Type.Literal(kind),
      timestamp: Type.Integer({ description: 'Unix time in milliseconds when the event happened' }),
      livemode: Livemode,
      id: Type.String({ format: 'uuid', description: 'The event’s id: the same on every delivery of it (each endpoint, retry, resend and replay); X-SVC-Delivery is the delivery’s' }),
      type: Type.Literal(kind, { description: 'The event kind again (= `event`), under the name other platforms use' }),
      createdAt: Type.String({ format: 'date-time', description: '`timestamp` as ISO 8601 (UTC, milliseconds)' }),
      source: Type.Literal(source, {
        description: 'Which family the event is of: `invoicing` (console webhooks) or `crypto` (the merchant’s webhookUrl). Tells the two `invoice.paid` apart',
      }),
      ...fields,
    },
    { additionalProperties: false },
  );
}

/** The headers of webhook requests, as the OpenAPI `webhooks` sections describe them: `always` sent, or only when their description says. */
export const WEBHOOK_HEADERS: Record<string, { description: string; always: boolean }> = {
  'Content-Type': { description: 'application/json', always: true },
  'X-SVC-Event': { description: 'The event kind, e.g. invoice.paid', always: true },
  'X-SVC-Signature': {
    description: 'Lower-case hex HMAC-SHA256(secret, X-SVC-Timestamp + raw body). Verify before processing. While a rotated secret’s overlap lasts it is the old secret’s (see X-SVC-Signatures)',
    always: true,
  },
  'X-SVC-Signatures': {
    description:
      'Sent only while a rotated secret’s overlap lasts: every signature, as space-separated `v1,<hex>` entries, the new secret’s first (each the same HMAC as X-SVC-Signature, with that secret). Accept the request when any entry matches a secret you hold',
    always: false,
  },
  'X-SVC-Timestamp': { description: 'Unix time in milliseconds when this attempt was sent; refuse it if more than 5 minutes from your clock', always: true },
  'X-SVC-Delivery': { description: 'UUID of the delivery, the same on every retry and resend: deduplicate on it', always: true },
};

/** One kind of event, as the service that emits it declares it: the one place it is described. */
export interface EventKind {
  /** What happened, for the merchant: the OpenAPI webhook's summary. */
  summary: string;
  /** The body's fields beside the envelope (eventEnvelope: `event`, `timestamp`, `livemode`, `id`, ...), e.g. `{ invoice: InvoiceObject }`. */
  fields: Record<string, TSchema>;
  /**
   * Those fields with values that cannot be mistaken for real ones: the console's test event
   * ("a sample request with a dummy payload") and the document's example body.
   */
  sample(at: Date, livemode: boolean): Record<string, unknown>;
}

/**
 * Every event kind one service emits, each with its body schema, summary and sample: defined
 * once, by that service (`defineEvents`), and handed to this package, which knows no kind of
 * its own. From it come the body schemas recorded events are checked against (eventsOf), the
 * OpenAPI `webhooks` section (`webhookDocs`), the console's test events (sendTestEvent) and,
 * through the committed documents, the types of @pay/webhook-receiver and @pay/client. The
 * service records its events with recordEvent, `type` typed by the catalogue's kinds.
 */
export interface EventCatalogue<K extends string = string> {
  readonly source: EventSource;
  /** The kinds in the order they are declared (the document's, the console's). */
  readonly kinds: readonly K[];
  /** The whole body schema of each kind: the envelope with its fields. */
  readonly bodies: Readonly<Record<K, TObject>>;
  /** A kind's sample fields (EventKind.sample), recorded as `object` by the console's test event. */
  sample(kind: K, at: Date, livemode: boolean): Record<string, unknown>;
  /** The service's OpenAPI `webhooks` section, one entry per kind, an example body each. */
  webhookDocs(): Record<string, OutgoingWebhook>;
}

/** When the document's example events happen: fixed, so the committed documents do not change from run to run. */
const EXAMPLE_AT = new Date('2026-01-15T09:30:00.000Z');
const EXAMPLE_EVENT_ID = '00000000-0000-4000-8000-00000000e7e0';

/**
 * Defines a service's event catalogue and hands it to this package (eventsOf validates that
 * source's recorded bodies against it). `sentTo` says, for the document, where the events go
 * and which secret signs them; the delivery rules are the same for every event, from one worker.
 */
export function defineEvents<K extends string>(
  source: EventSource,
  sentTo: string,
  kinds: Record<K, EventKind>,
): EventCatalogue<K> {
  const names = Object.keys(kinds) as K[];
  const bodies = Object.fromEntries(names.map((k) => [k, eventEnvelope(source, k, kinds[k].fields)])) as Record<K, TObject>;
  const sample = (kind: K, at: Date, livemode: boolean) => kinds[kind].sample(at, livemode);
  const catalogue: EventCatalogue<K> = {
    source,
    kinds: names,
    bodies,
    sample,
    webhookDocs: () =>
      Object.fromEntries(
        names.map((k) => [
          k,
          {
            summary: kinds[k].summary,
            description:
              `${sentTo} Timeout 10 s; any 2xx is success. ` +
              'Otherwise retried 1 min, 5 min, 15 min, 1 h and 4 h after the previous attempt; after the 6th failed attempt the delivery is failed. ' +
              'At least once: the same X-SVC-Delivery may arrive more than once.',
            body: bodies[k],
            example: { ...envelopeOf({ id: EXAMPLE_EVENT_ID, source, type: k, at: EXAMPLE_AT.getTime(), livemode: true }), ...sample(k, EXAMPLE_AT, true) },
            headers: WEBHOOK_HEADERS,
          },
        ]),
      ),
  };
  registerEventPayloads(source, bodies);
  return catalogue;
}
