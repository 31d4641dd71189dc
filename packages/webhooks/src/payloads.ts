import { Type, type TObject, type TSchema } from '@sinclair/typebox';
import { Amount, NullableTimestamp, StringEnum, Timestamp, Uuid } from '@pay/schemas';

/**
 * The invoicing event kinds, the ones a console webhook subscribes to. Crypto
 * events go to the merchant's `webhookUrl` instead.
 */
export const INVOICING_EVENT_KINDS = [
  'invoice.paid',
  'invoice.expired',
  'invoice.cancelled',
  'invoice.refunded',
  'kyc.passed',
  'kyc.rejected',
  'kyc.manual_review',
] as const;
export type InvoicingEventKind = (typeof INVOICING_EVENT_KINDS)[number];

export const CRYPTO_EVENT_KINDS = ['transaction.confirmed', 'invoice.paid', 'withdrawal.completed', 'withdrawal.failed'] as const;

/**
 * `livemode` of every event, of both services: recordEvent writes it from the event's mode,
 * so no event (a kind added later included) can leave it out, and a receiver can refuse test
 * events at a live endpoint (@pay/webhook-receiver does unless told to accept them).
 */
export const Livemode = Type.Boolean({ description: 'false for an event of test mode (a test key, the sandbox), true for live mode' });

/** `{ event, timestamp, livemode, <key>: object }`: the envelope of every event (`extra`: fields beside the object, e.g. the `refund` of invoice.refunded). */
export function eventEnvelope(kind: string, key: string, object: TSchema, extra: Record<string, TSchema> = {}) {
  return Type.Object(
    {
      event: Type.Literal(kind),
      timestamp: Type.Integer({ description: 'Unix time in milliseconds when the event happened' }),
      livemode: Livemode,
      [key]: object,
      ...extra,
    },
    { additionalProperties: false },
  );
}

const Metadata = Type.Record(Type.String(), Type.Unknown(), { description: 'The object given at creation' });
const Nullable = <T extends ReturnType<typeof Type.String>>(s: T) => Type.Union([s, Type.Null()]);

/** The currencies of invoices (v2 invoices are RUB; v1 and batch invoices name theirs). */
export const INVOICE_CURRENCIES = ['USD', 'EUR', 'RUB', 'KZT'] as const;

/**
 * The `invoice` of every `invoice.*` event, whatever its kind: one definition, so an event
 * kind added later carries the same fields (`currency`, `livemode`, `paymentMethod`,
 * `payerBank`, `refundedAmount`) as the others.
 */
export function invoiceObject(status: string) {
  return Type.Object(
    {
      id: Uuid,
      invoiceNumber: Type.String({ description: 'INV-<digits>-<suffix>' }),
      amount: { ...Amount, description: 'In `currency`, in its main unit, not in minor units (kopecks, cents), as every amount of the API' },
      currency: StringEnum(INVOICE_CURRENCIES, { description: 'The invoice’s currency: `RUB` for v2 invoices; a v1 or batch invoice’s own' }),
      livemode: Livemode,
      status: Type.Literal(status),
      paymentMethod: StringEnum(['sbp', 'card'] as const, { description: 'How the invoice was paid once it is; before that, the method it was created for' }),
      payerBank: { ...Nullable(Type.String()), description: 'The payer’s bank, once the payment reports it (SBP); null until then' },
      refundedAmount: { ...Amount, description: 'Refunded so far, in `currency` (0 when nothing was)' },
      paidAt: status === 'PAID' ? Timestamp : NullableTimestamp,
      metadata: Metadata,
      customerEmail: Nullable(Type.String()),
      customerPhone: Nullable(Type.String()),
    },
    { additionalProperties: false },
  );
}

const NullableText = Type.Union([Type.String(), Type.Null()]);

/**
 * A refund record exactly as the API answers it (POST and GET /api/v2/invoices/{id}/refunds):
 * the invoicing service builds its RefundRecord from these properties, so the API's record
 * and the webhook's cannot drift apart.
 */
export const RefundObject = Type.Object(
  {
    id: Uuid,
    invoiceId: Uuid,
    amount: { ...Amount, description: 'Refunded by this refund, in rubles (not kopecks)' },
    currency: Type.String({ description: 'The invoice’s currency' }),
    status: StringEnum(['PENDING', 'SUCCEEDED', 'FAILED'] as const),
    reason: { ...NullableText, description: 'The merchant’s reason, as given; null when none' },
    failureReason: { ...NullableText, description: 'Why the provider refused it (FAILED); null otherwise' },
    createdAt: Timestamp,
    settledAt: NullableTimestamp,
  },
  { additionalProperties: false, description: 'One refund of a paid invoice' },
);

/** `invoice.refunded` is sent once the provider has returned the money: the refund is SUCCEEDED and settled. */
const SettledRefund = Type.Object(
  { ...RefundObject.properties, status: Type.Literal('SUCCEEDED'), settledAt: Timestamp },
  { additionalProperties: false, description: 'The refund record (as the refunds API answers it) of this refund' },
);

const V1_KYC_STATUS: Record<string, string> = { APPROVED: 'completed', DECLINED: 'failed', IN_PROGRESS: 'in_progress' };

/** A v2 session in the v2 vocabulary; a v1 session (POST /api/v1/kyc/sessions) in the v1 shape and statuses. */
function kycSession(status: string) {
  const reason = Type.Union([Type.String(), Type.Null()], { description: 'Why the session was declined or sent to review; null when passed' });
  const v2 = Type.Object(
    {
      id: Uuid,
      sessionId: Type.String(),
      status: Type.Literal(status),
      invoiceId: Type.Union([Uuid, Type.Null()]),
      customerId: Nullable(Type.String()),
      customerEmail: Nullable(Type.String()),
      customerPhone: Nullable(Type.String()),
      reason: Type.Optional(reason),
      updatedAt: Timestamp,
    },
    { additionalProperties: false, title: 'v2 session' },
  );
  const v1 = Type.Object(
    { id: Uuid, level: Type.Union([Type.Literal('basic'), Type.Literal('advanced')]), status: Type.Literal(V1_KYC_STATUS[status]!), metadata: Metadata, reason, updatedAt: Timestamp },
    { additionalProperties: false, title: 'v1 session' },
  );
  return Type.Union([v2, v1]);
}

/**
 * The body of each invoicing event. `invoice.paid` is exactly the documented one (OpenAPI `webhooks`); the
 * others use the same envelope with the object that changed. These schemas are the contract:
 * the OpenAPI `webhooks` section is built from them and the samples below must satisfy them.
 */
export const EventPayloads: Record<InvoicingEventKind, TObject> = {
  'invoice.paid': eventEnvelope('invoice.paid', 'invoice', invoiceObject('PAID')),
  'invoice.expired': eventEnvelope('invoice.expired', 'invoice', invoiceObject('EXPIRED')),
  'invoice.cancelled': eventEnvelope('invoice.cancelled', 'invoice', invoiceObject('CANCELLED')),
  'invoice.refunded': eventEnvelope('invoice.refunded', 'invoice', invoiceObject('PAID'), { refund: SettledRefund }),
  'kyc.passed': eventEnvelope('kyc.passed', 'session', kycSession('APPROVED')),
  'kyc.rejected': eventEnvelope('kyc.rejected', 'session', kycSession('DECLINED')),
  'kyc.manual_review': eventEnvelope('kyc.manual_review', 'session', kycSession('IN_PROGRESS')),
};

export const EVENT_DESCRIPTIONS: Record<InvoicingEventKind, string> = {
  'invoice.paid': 'The customer paid the invoice.',
  'invoice.expired': 'The invoice time ran out and it became EXPIRED.',
  'invoice.cancelled': 'The merchant cancelled the invoice.',
  'invoice.refunded': 'A full or partial refund was made; `refund` is this refund.',
  'kyc.passed': 'The customer passed KYC.',
  'kyc.rejected': 'KYC was declined.',
  'kyc.manual_review': 'KYC was sent to manual review.',
};

/**
 * The object of a console test event ("a sample request with a dummy payload"): the shape of
 * the real event, with values that cannot be mistaken for real ones.
 */
export function sampleObject(kind: InvoicingEventKind, at: Date, livemode: boolean): Record<string, unknown> {
  const zero = '00000000-0000-4000-8000-000000000000';
  const iso = at.toISOString();
  const status = { 'invoice.paid': 'PAID', 'invoice.expired': 'EXPIRED', 'invoice.cancelled': 'CANCELLED', 'invoice.refunded': 'PAID' } as const;
  if (kind.startsWith('invoice.')) {
    const s = status[kind as keyof typeof status];
    const invoice = {
      id: zero,
      invoiceNumber: 'INV-0000000000-TEST',
      amount: 1500.5,
      currency: 'RUB',
      livemode,
      status: s,
      paymentMethod: 'sbp',
      payerBank: s === 'PAID' ? 'Test Bank' : null,
      refundedAmount: kind === 'invoice.refunded' ? 500 : 0,
      paidAt: s === 'PAID' ? iso : null,
      metadata: { test: true },
      customerEmail: 'customer@example.com',
      customerPhone: '+70000000000',
    };
    const refund = { id: zero, invoiceId: zero, amount: 500, currency: 'RUB', status: 'SUCCEEDED', reason: 'Test event', failureReason: null, createdAt: iso, settledAt: iso };
    return kind === 'invoice.refunded' ? { invoice, refund } : { invoice };
  }
  const kyc = { 'kyc.passed': 'APPROVED', 'kyc.rejected': 'DECLINED', 'kyc.manual_review': 'IN_PROGRESS' } as const;
  return {
    session: {
      id: zero,
      sessionId: 'kyc_test',
      status: kyc[kind as keyof typeof kyc],
      invoiceId: null,
      customerId: 'customer-test',
      customerEmail: 'customer@example.com',
      customerPhone: '+70000000000',
      reason: kind === 'kyc.passed' ? null : 'Test event',
      updatedAt: iso,
    },
  };
}
