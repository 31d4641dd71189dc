import { Type } from '@sinclair/typebox';
import { CURRENCIES } from './currencies';
import { Amount, Email, IsoDay, NullableTimestamp, OffsetQuery, StringEnum, Timestamp, Uuid } from '@pay/schemas';
import { PaymentAttemptObject, PaymentReviewObject, RefundObject } from './event-objects';
import { KycStatusName } from '../customers/schemas';

export const INVOICE_STATUSES = ['PENDING', 'PAID', 'EXPIRED', 'CANCELLED'] as const;
export const InvoiceStatus = StringEnum(INVOICE_STATUSES, { title: 'InvoiceStatus' });
export const PaymentMethodName = StringEnum(['sbp', 'card'] as const, { title: 'PaymentMethod' });
/** `+7` and ten digits. */
export const RussianPhone = Type.String({ pattern: '^\\+7\\d{10}$', description: '`+7XXXXXXXXXX`', examples: ['+79991234567'] });
const NullableString = Type.Union([Type.String(), Type.Null()]);

/**
 * Bounds of `expiresInHours` (documented in the OpenAPI description of create): from one minute
 * (SBP's dynamic QR lives at least that long, and a till needs short invoices) to 30 days.
 */
export const EXPIRES_IN_HOURS = { min: 1 / 60, max: 720, default: 1 };

export const CreateInvoiceBody = Type.Object(
  {
    amount: Type.Number({ exclusiveMinimum: 0, description: 'Rubles; at most 2 decimal places (kopecks), below 1,000,000,000' }),
    paymentMethod: Type.Optional(StringEnum(['sbp', 'card'] as const, { description: '`card` gives a card invoice; omitted or `sbp` an SBP invoice' })),
    description: Type.Optional(Type.String({ maxLength: 500 })),
    customerEmail: Type.Optional(Email),
    customerName: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    customerPhone: Type.Optional(RussianPhone),
    expiresInHours: Type.Optional(
      Type.Number({
        minimum: EXPIRES_IN_HOURS.min,
        maximum: EXPIRES_IN_HOURS.max,
        'x-limits': { minimum: '1/60 (one minute)' },
        description: `Default ${EXPIRES_IN_HOURS.default}; from 1/60 (one minute: ${EXPIRES_IN_HOURS.min}) to ${EXPIRES_IN_HOURS.max} (30 days); fractions allowed`,
      }),
    ),
    kycRequired: Type.Optional(Type.Boolean({ description: 'Default false: the invoice cannot be paid until `kycVerified` is true' })),
    receiptRequired: Type.Optional(Type.Boolean({ description: 'Default false: the payment counts once an uploaded receipt is approved' })),
    metadata: Type.Optional(
      Type.Record(Type.String({ maxLength: 40 }), Type.Unknown(), {
        maxProperties: 50,
        description: 'Free-form object (at most 50 keys), not shown in the invoice views; returned in webhook events as the JSON text sent (digits, `2.50`, key order)',
      }),
    ),
  },
  { additionalProperties: false },
);

export const InvoiceCustomer = Type.Object(
  { id: Uuid, fullName: NullableString, email: NullableString, kycStatus: KycStatusName },
  { title: 'InvoiceCustomer', additionalProperties: false, description: 'The customer identified by the invoice’s e-mail or phone (bound when paid)' },
);

/** What every invoice object tells (v1 and v2 views, events): see `paymentFactsJson`. */
export const PaymentFacts = Type.Object({
  livemode: Type.Boolean({ description: 'false for a test-mode invoice (made with a test key), true for a live one' }),
  paymentMethod: { ...PaymentMethodName, description: 'How the invoice was paid once it is; before that, the method it was created for (`sbp` unless `card`)' },
  payerBank: Type.Union([Type.String(), Type.Null()], { description: 'The payer’s bank, once the payment reports it (SBP); null until then' }),
  refundedAmount: { ...Amount, description: 'Refunded so far, in `currency` (0 when nothing was)' },
});

/** Fields every view has. */
const common = {
  id: Uuid,
  invoiceNumber: Type.String({ pattern: '^INV-\\d{8}-[0-9A-Z]{8}$', examples: ['INV-20260115-7Q2M9XKD'] }),
  amount: Amount,
  currency: StringEnum(CURRENCIES, { description: '`RUB` for every invoice created through v2; an invoice created through v1 shows its own currency' }),
  description: NullableString,
  status: InvoiceStatus,
  ...PaymentFacts.properties,
  expiresAt: Timestamp,
  createdAt: Timestamp,
  qrCode: Type.Optional(Type.String({ pattern: '^data:image/png;base64,', examples: ['data:image/png;base64,iVBORw0KGgo='], description: 'SBP invoices: PNG data URI of `qrPayload`' })),
  qrPayload: Type.Optional(Type.String({ description: 'SBP invoices: the link the QR code encodes' })),
  externalOrderId: Type.String({ format: 'uuid', description: 'The payment provider’s order id' }),
  kycRequired: Type.Boolean(),
  kycVerified: Type.Boolean({ description: 'A KYC session bound to the invoice, or the customer’s KYC, is approved' }),
  paymentLink: Type.String({ description: 'The hosted payment page: redirect the customer here' }),
};
const originalPaymentUrl = Type.Optional(Type.String({ description: 'Card invoices: the card form itself' }));

export const CreatedInvoice = Type.Object(
  {
    ...common,
    receiptRequired: Type.Boolean(),
    originalPaymentUrl,
    customer: Type.Null({ description: 'Always null on create' }),
  },
  { title: 'CreatedInvoice', additionalProperties: false },
);

export const InvoiceListItem = Type.Object(
  { ...common, customerEmail: NullableString, customerName: NullableString, paidAt: NullableTimestamp },
  { title: 'InvoiceListItem', additionalProperties: false },
);

/** The invoice's review, as `invoice.payment_review` carries it. */
export const InvoiceReview = Type.Object({ ...PaymentReviewObject.properties }, { additionalProperties: false, description: PaymentReviewObject.description, title: 'PaymentReview' });
export const InvoiceAttempt = Type.Object(
  {
    ...PaymentAttemptObject.properties,
    declineReason: Type.Union([StringEnum(['REJECTED', 'AUTH_FAIL', 'ATTEMPTS_EXPIRED'] as const), Type.Null()], {
      description: 'Why a DECLINED payment was: REJECTED (the payer’s bank or the acquirer refused it), AUTH_FAIL (3-D Secure authentication failed), ATTEMPTS_EXPIRED (too many failed tries); null otherwise',
    }),
    amount: { ...Amount, description: 'Asked, or (once confirmed) what the acquirer took, in rubles' },
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { additionalProperties: false, title: 'PaymentAttempt' },
);

export const InvoiceDetail = Type.Object(
  {
    ...InvoiceListItem.properties,
    customerPhone: NullableString,
    sbpTransactionId: Type.Union([Type.String(), Type.Null()], { description: 'After an SBP payment: the SBP transaction id; null otherwise' }),
    receiptRequired: Type.Boolean(),
    originalPaymentUrl,
    customer: Type.Union([InvoiceCustomer, Type.Null()]),
    review: Type.Union([InvoiceReview, Type.Null()], { description: 'Money awaiting the merchant’s decision (accept or refund); null when all is well' }),
    attempts: Type.Array(InvoiceAttempt, { description: 'The acquirer payments of the invoice, first first: one more after each decline; empty for the sandbox' }),
  },
  { title: 'Invoice', additionalProperties: false },
);


/** The spec's `limit`, `offset` and `status`, and this service's optional filters (additions: merchants and the console use them alike). */
export const ListInvoicesQuery = Type.Object(
  {
    ...OffsetQuery(1000),
    status: Type.Optional(InvoiceStatus),
    paymentMethod: Type.Optional(StringEnum(['sbp', 'card'] as const, { description: 'The items’ `paymentMethod`: how the invoice was paid, else how it is offered' })),
    createdFrom: Type.Optional(IsoDay('Created on or after this day: YYYY-MM-DD (UTC), inclusive')),
    createdTo: Type.Optional(IsoDay('Created on or before this day: YYYY-MM-DD (UTC), inclusive')),
    search: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'Case-insensitive: the invoice number from its start, the whole invoice id, or any part of the customer’s e-mail, name or phone, or of the description',
      }),
    ),
  },
  { additionalProperties: false },
);
export const InvoiceParams = Type.Object({ invoiceId: Uuid });

export const SandboxPayBody = Type.Object(
  {
    payerBank: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Default `Sandbox Bank` for SBP' })),
    method: Type.Optional(StringEnum(['sbp', 'card'] as const, { description: 'Default: the invoice’s payment method' })),
  },
  { additionalProperties: false },
);


export const RefundBody = Type.Object(
  {
    amount: Type.Optional(Type.Number({ exclusiveMinimum: 0, description: 'Rubles, at most 2 decimal places; default: all that is not yet refunded' })),
    reason: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
  },
  { additionalProperties: false },
);

/** The webhook's refund record (`invoice.refunded`'s `refund`) with the currency narrowed to invoice currencies: one definition for both. */
export const RefundRecord = Type.Object(
  { ...RefundObject.properties, currency: StringEnum(CURRENCIES, { description: 'The invoice’s currency' }) },
  { title: 'Refund', additionalProperties: false, description: RefundObject.description },
);

export const RefundedInvoice = Type.Object(
  {
    id: Uuid,
    status: InvoiceStatus,
    amount: Amount,
    refundedAmount: Amount,
    refundableAmount: Amount,
  },
  { title: 'RefundedInvoice', additionalProperties: false, description: 'The invoice after the refund; it stays PAID, even when fully refunded' },
);
