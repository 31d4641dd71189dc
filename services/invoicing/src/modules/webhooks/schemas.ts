// The JSON of a merchant's webhooks, the same in the console's API and the v2 API.
import { Type } from '@sinclair/typebox';
import { HttpUrl, NullableTimestamp, OffsetQuery, StringEnum, Timestamp, Uuid } from '@pay/schemas';
import { MAX_SECRET_OVERLAP_SECONDS } from '@pay/webhooks';
import { INVOICING_EVENT_KINDS } from '../../event-catalogue';

export const EventKind = StringEnum(INVOICING_EVENT_KINDS, { description: 'An invoicing event kind' });
const Events = Type.Array(EventKind, { minItems: 1, uniqueItems: true, description: 'Event kinds this webhook receives' });
const Description = Type.String({ maxLength: 500 });
const WebhookUrl = Type.String({
  ...HttpUrl,
  description:
    'Where events are POSTed. HTTPS in production; never a private, loopback or link-local address (checked when saved and again at every send).',
});

export const CreateWebhookBody = Type.Object(
  { url: WebhookUrl, events: Events, description: Type.Optional(Description) },
  { additionalProperties: false },
);

export const UpdateWebhookBody = Type.Object(
  {
    url: Type.Optional(WebhookUrl),
    events: Type.Optional(Events),
    description: Type.Optional(Type.Union([Description, Type.Null()])),
    enabled: Type.Optional(
      Type.Boolean({
        description:
          'false disables the webhook (nothing is sent; what falls due meanwhile is failed, replayable); true enables it again and forgets its failing streak. Missed deliveries are sent again only by a replay.',
      }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const Webhook = Type.Object({
  id: Uuid,
  url: Type.String(),
  events: Type.Array(Type.String()),
  description: Type.Union([Type.String(), Type.Null()]),
  secret: Type.String({ description: 'Signs X-SVC-Signature; rotate it to revoke' }),
  previousSecretExpiresAt: Type.Union([Timestamp, Type.Null()], {
    description:
      'Until when the secret replaced by the last rotation still signs beside `secret` (X-SVC-Signature stays the old one’s, X-SVC-Signatures lists both); null when rotated without an overlap or never. A time past means the overlap is over',
  }),
  mode: StringEnum(['live', 'test'] as const, {
    description:
      'The events it receives: those of the mode it was made in, the signed-in key’s (a live key makes live webhooks). A live webhook never receives a livemode: false event, nor a test webhook a live one',
  }),
  enabled: Type.Boolean({ description: 'false once disabled (by its merchant, or after every delivery failed for 3 days)' }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  disabledAt: Type.Union([Timestamp, Type.Null()], { description: 'Set when every delivery failed for 3 days, or its merchant disabled it; replay to re-enable' }),
  disabledReason: Type.Union([Type.String(), Type.Null()], { description: '`every delivery failed for 3 days` or `disabled by the merchant`' }),
  failingSince: NullableTimestamp,
}, { title: 'Webhook' });

export const Delivery = Type.Object({
  id: Uuid,
  event: Type.String(),
  status: StringEnum(['pending', 'succeeded', 'failed'] as const),
  attempts: Type.Integer({ description: 'Scheduled attempts made (at most 6); manual resends are not counted' }),
  lastStatusCode: Type.Union([Type.Integer(), Type.Null()]),
  lastResponseBody: Type.Union([Type.String({ description: 'First 1 KB' }), Type.Null()]),
  lastError: Type.Union([Type.String(), Type.Null()]),
  createdAt: Timestamp,
  nextAttemptAt: NullableTimestamp,
}, { title: 'WebhookDeliverySummary', description: 'A delivery without its attempts' });

export const DeliveryQuery = Type.Object(
  { status: Type.Optional(StringEnum(['pending', 'succeeded', 'failed'] as const)), event: Type.Optional(EventKind), ...OffsetQuery(100) },
  { additionalProperties: false },
);

export const WebhookParams = Type.Object({ webhookId: Uuid });
export const ListWebhooksQuery = Type.Object({ ...OffsetQuery(100) }, { additionalProperties: false });

/** How long the replaced secret keeps signing: the console's default is 0 (the spec: it stops at once), the API's 24 h. */
export function RotateSecretBody(defaultSeconds: number) {
  return Type.Object(
    {
      overlapSeconds: Type.Integer({
        minimum: 0,
        maximum: MAX_SECRET_OVERLAP_SECONDS,
        default: defaultSeconds,
        description: `Seconds the replaced secret keeps signing beside the new one (0: it stops at once; at most ${MAX_SECRET_OVERLAP_SECONDS}, 7 days). Default ${defaultSeconds}`,
      }),
    },
    { additionalProperties: false },
  );
}

export const RotatedSecret = Type.Object({
  secret: Type.String({ description: 'The new secret, signing from the next request on' }),
  previousSecretExpiresAt: Type.Union([Timestamp, Type.Null()], { description: 'Until when the replaced secret signs too; null when it stopped at once' }),
}, { title: 'RotatedWebhookSecret' });

export const DeliveryParams = Type.Object({ webhookId: Uuid, deliveryId: Uuid });

export const Attempt = Type.Object({
  attemptedAt: Timestamp,
  durationMs: Type.Integer({ minimum: 0 }),
  url: Type.String({ description: 'Where it was sent (the webhook’s URL then)' }),
  statusCode: Type.Union([Type.Integer(), Type.Null()], { description: 'The answer’s status; null when there was none (see `error`)' }),
  error: Type.Union([Type.String(), Type.Null()], { description: 'Network failure or refusal (timeout, connection refused, private address) when there was no answer' }),
  responseBody: Type.Union([Type.String({ description: 'First 1 KB' }), Type.Null()]),
  succeeded: Type.Boolean(),
  manual: Type.Boolean({ description: 'A resend or replay asked for, rather than the retry schedule' }),
}, { title: 'WebhookAttempt' });

export const DeliveryWithAttempts = Type.Object({
  ...Delivery.properties,
  eventId: Type.String({ format: 'uuid', description: 'The event it delivers: its body’s `id`' }),
  attemptHistory: Type.Array(Attempt, { description: 'Every request made for it, oldest first' }),
}, { title: 'WebhookDelivery' });

export const ReplayBody = Type.Object(
  { since: Type.String({ format: 'date-time', description: 'Replay the events from this time on (ISO 8601), at most 30 days ago' }) },
  { additionalProperties: false },
);

export const Replayed = Type.Object({
  since: Timestamp,
  created: Type.Integer({ minimum: 0, description: 'Events it had no delivery of, now delivered' }),
  resent: Type.Integer({ minimum: 0, description: 'Deliveries sent again (failed ones on a fresh schedule, succeeded ones resent, waiting retries brought forward)' }),
}, { title: 'WebhookReplay' });
