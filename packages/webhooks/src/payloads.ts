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
  'invoice.payment_failed',
  'invoice.payment_review',
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
export function invoiceObject(status: string | readonly string[]) {
  return Type.Object(
    {
      id: Uuid,
      invoiceNumber: Type.String({ description: 'INV-<digits>-<suffix>' }),
      amount: { ...Amount, description: 'In `currency`, in its main unit, not in minor units (kopecks, cents), as every amount of the API' },
      currency: StringEnum(INVOICE_CURRENCIES, { description: 'The invoice’s currency: `RUB` for v2 invoices; a v1 or batch invoice’s own' }),
      livemode: Livemode,
      status: typeof status === 'string' ? Type.Literal(status) : StringEnum(status),
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

/**
 * A payment review (the invoice's `review`, and `invoice.payment_review`): money taken, or
 * claimed by a receipt, that the invoice did not simply take; the merchant accepts or refunds it.
 */
export const PaymentReviewObject = Type.Object(
  {
    id: Uuid,
    reason: StringEnum(['amount_mismatch', 'paid_after_expiry', 'paid_after_cancel', 'duplicate_payment', 'receipt_only', 'receipt_missing', 'invoice_refused'] as const, {
      description:
        'amount_mismatch: the acquirer took another amount than the invoice’s; paid_after_expiry / paid_after_cancel: taken after the invoice expired or was cancelled; ' +
        'duplicate_payment: taken again for a paid invoice; receipt_only: a receipt was approved but the acquirer confirmed no payment (nothing taken there); ' +
        'receipt_missing: the acquirer took the payment of a receiptRequired invoice, but no receipt was approved before it expired; ' +
        'invoice_refused: taken, but the invoice refused the payer (blocked customer, KYC missing)',
    }),
    status: StringEnum(['OPEN', 'REFUNDING'] as const, { description: 'OPEN: awaiting the merchant; REFUNDING: a refund was asked and the acquirer has not confirmed it yet' }),
    amount: { ...Amount, description: 'Taken (receipt_only: what the receipt shows), in rubles' },
    currency: Type.String({ description: 'The invoice’s currency' }),
    takenAt: { ...Timestamp, description: 'When the acquirer’s confirmation was heard (receipt_only: when the receipt was uploaded)' },
    detail: Type.String({ description: 'What happened, for a person' }),
    createdAt: Timestamp,
  },
  { additionalProperties: false, description: 'Money awaiting the merchant’s decision: accept (the money stays; a PENDING or EXPIRED invoice becomes PAID) or refund (the acquirer returns it)' },
);

/** One acquirer payment of an invoice (`attempts`, and the declined one of `invoice.payment_failed`). */
export const PaymentAttemptObject = Type.Object(
  {
    attempt: Type.Integer({ minimum: 1, description: '1 for the payment opened with the invoice; one more for each fresh payment after a decline' }),
    method: StringEnum(['sbp', 'card'] as const),
    status: StringEnum(['PENDING', 'DECLINED', 'CONFIRMED', 'PARTIALLY_REFUNDED', 'REFUNDED', 'CLOSED'] as const),
  },
  { additionalProperties: true, description: 'One acquirer payment (Init) of the invoice' },
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
  'invoice.payment_failed': eventEnvelope('invoice.payment_failed', 'invoice', invoiceObject('PENDING'), {
    attempt: Type.Object({ ...PaymentAttemptObject.properties, acquirerStatus: Type.String({ description: 'The acquirer’s own status (REJECTED, AUTH_FAIL, ...)' }) }, { additionalProperties: false }),
  }),
  'invoice.payment_review': eventEnvelope('invoice.payment_review', 'invoice', invoiceObject(['PENDING', 'PAID', 'EXPIRED', 'CANCELLED'] as const), { review: PaymentReviewObject }),
  'kyc.passed': eventEnvelope('kyc.passed', 'session', kycSession('APPROVED')),
  'kyc.rejected': eventEnvelope('kyc.rejected', 'session', kycSession('DECLINED')),
  'kyc.manual_review': eventEnvelope('kyc.manual_review', 'session', kycSession('IN_PROGRESS')),
};

export const EVENT_DESCRIPTIONS: Record<InvoicingEventKind, string> = {
  'invoice.paid': 'The customer paid the invoice.',
  'invoice.expired': 'The invoice time ran out and it became EXPIRED.',
  'invoice.cancelled': 'The merchant cancelled the invoice.',
  'invoice.refunded': 'A full or partial refund was made (here, or in the acquirer’s own account); `refund` is this refund.',
  'invoice.payment_failed': 'The acquirer declined a payment of the invoice; it stays PENDING and payable with a fresh payment (new QR or form). `attempt` is the declined one.',
  'invoice.payment_review': 'Money was taken (or a receipt claims it) that the invoice did not simply take; `review` says why. Accept or refund it (POST /api/v2/invoices/{id}/review/accept or /refund, or the console).',
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
  const status = {
    'invoice.paid': 'PAID',
    'invoice.expired': 'EXPIRED',
    'invoice.cancelled': 'CANCELLED',
    'invoice.refunded': 'PAID',
    'invoice.payment_failed': 'PENDING',
    'invoice.payment_review': 'PENDING',
  } as const;
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
    if (kind === 'invoice.refunded') return { invoice, refund };
    if (kind === 'invoice.payment_failed') return { invoice, attempt: { attempt: 1, method: 'sbp', status: 'DECLINED', acquirerStatus: 'REJECTED' } };
    if (kind === 'invoice.payment_review') {
      return { invoice, review: { id: zero, reason: 'amount_mismatch', status: 'OPEN', amount: 1400, currency: 'RUB', takenAt: iso, detail: 'Test event', createdAt: iso } };
    }
    return { invoice };
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
