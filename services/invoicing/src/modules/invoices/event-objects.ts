import { Type } from '@sinclair/typebox';
import { Amount, NullableTimestamp, StringEnum, Timestamp, Uuid } from '@pay/schemas';
import { Livemode } from '@pay/webhooks';

/*
 * The objects the `invoice.*` events carry (their entries in ../event-catalogue.ts). The API's
 * own records of a refund, a review and an acquirer payment (schemas.ts) are built from the
 * same properties, so an answer and a webhook body cannot drift apart.
 */

const Metadata = Type.Record(Type.String(), Type.Unknown(), { description: 'The object given at creation' });
const Nullable = <T extends ReturnType<typeof Type.String>>(s: T) => Type.Union([s, Type.Null()]);

/** The currencies of invoices (v2 invoices are RUB; v1 and batch invoices name theirs). */
const INVOICE_CURRENCIES = ['USD', 'EUR', 'RUB', 'KZT'] as const;

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
export const SettledRefund = Type.Object(
  { ...RefundObject.properties, status: Type.Literal('SUCCEEDED'), settledAt: Timestamp },
  { title: 'SettledRefund', additionalProperties: false, description: 'The refund record (as the refunds API answers it) of this refund' },
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
  { title: 'PaymentReview', additionalProperties: false, description: 'Money awaiting the merchant’s decision: accept (the money stays; a PENDING or EXPIRED invoice becomes PAID) or refund (the acquirer returns it)' },
);

/** One acquirer payment of an invoice (`attempts`, and the declined one of `invoice.payment_failed`). */
export const PaymentAttemptObject = Type.Object(
  {
    attempt: Type.Integer({ minimum: 1, description: '1 for the payment opened with the invoice; one more for each fresh payment after a decline' }),
    method: StringEnum(['sbp', 'card'] as const),
    status: StringEnum(['PENDING', 'DECLINED', 'CONFIRMED', 'PARTIALLY_REFUNDED', 'REFUNDED', 'CLOSED'] as const),
  },
  { title: 'PaymentAttemptSummary', additionalProperties: true, description: 'One acquirer payment (Init) of the invoice' },
);
