import { Type } from '@sinclair/typebox';
import { HttpUrl, NullableTimestamp, OffsetPage, OffsetQuery, StringEnum, Timestamp, Uuid } from '@pay/schemas';
import { INVOICING_EVENT_KINDS } from '../../event-catalogue';

const EventKind = StringEnum(INVOICING_EVENT_KINDS, { description: 'An invoicing event kind' });
const Events = Type.Array(EventKind, { minItems: 1, uniqueItems: true, description: 'Event kinds this webhook receives' });
const Description = Type.String({ maxLength: 500 });

export const SignInBody = Type.Object({ apiKey: Type.String({ minLength: 1, maxLength: 200, description: 'sk_live_… or sk_test_…; the session acts in its mode' }) }, { additionalProperties: false });

export const SignedIn = Type.Object({
  merchant: Type.Object({ id: Uuid, companyName: Type.String(), email: Type.String(), mode: StringEnum(['test', 'live'] as const) }),
  csrfToken: Type.String({ description: 'Send as X-CSRF-Token with every change' }),
  expiresAt: Timestamp,
});

export const CreateWebhookBody = Type.Object(
  { url: HttpUrl, events: Events, description: Type.Optional(Description) },
  { additionalProperties: false },
);

export const UpdateWebhookBody = Type.Object(
  { url: Type.Optional(HttpUrl), events: Type.Optional(Events), description: Type.Optional(Type.Union([Description, Type.Null()])) },
  { additionalProperties: false, minProperties: 1 },
);

export const TestBody = Type.Object({ event: Type.Optional(EventKind) }, { additionalProperties: false });

export const Webhook = Type.Object({
  id: Uuid,
  url: Type.String(),
  events: Type.Array(Type.String()),
  description: Type.Union([Type.String(), Type.Null()]),
  secret: Type.String({ description: 'Signs X-SVC-Signature; rotate it to revoke' }),
  mode: StringEnum(['live', 'test'] as const, {
    description:
      'The events it receives: those of the mode it was made in, the signed-in key’s (a live key makes live webhooks). A live webhook never receives a livemode: false event, nor a test webhook a live one',
  }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  disabledAt: Type.Union([Timestamp, Type.Null()], { description: 'Set when every delivery failed for 3 days; replay to re-enable' }),
  failingSince: NullableTimestamp,
});

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
});

export const DeliveryQuery = Type.Object(
  { status: Type.Optional(StringEnum(['pending', 'succeeded', 'failed'] as const)), event: Type.Optional(EventKind), ...OffsetQuery(100) },
  { additionalProperties: false },
);

export const Deliveries = OffsetPage(Delivery);
export const IdParams = Type.Object({ id: Uuid });
