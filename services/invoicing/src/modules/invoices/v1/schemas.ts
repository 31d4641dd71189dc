import { Type } from '@sinclair/typebox';
import { Amount, HttpUrl, StringEnum, Timestamp } from '@pay/schemas';
import { CreateInvoiceBody, InvoiceReview, PaymentFacts, SandboxPayBody } from '../schemas';
import { CURRENCIES } from '../currencies';

export const CurrencyCode = StringEnum(CURRENCIES, { title: 'Currency', description: '`USD`, `EUR`, `RUB`, `KZT`' });
export const V1_STATUSES = ['pending', 'paid', 'expired', 'cancelled'] as const;
export const V1Status = StringEnum(V1_STATUSES, { title: 'V1InvoiceStatus' });
/** The v1 default validity. */
export const V1_DEFAULT_VALIDITY_HOURS = 24;
/** The longest validity a v1 invoice may ask for, as v2's `expiresInHours` maximum. */
export const V1_MAX_VALIDITY_DAYS = 30;

const Metadata = CreateInvoiceBody.properties.metadata;

export const CreateV1InvoiceBody = Type.Object(
  {
    amount: Type.Number({ exclusiveMinimum: 0, description: 'In the given currency; at most 2 decimal places, below 1,000,000,000' }),
    currency: CurrencyCode,
    description: Type.Optional(Type.String({ maxLength: 500, description: 'Shown to the customer' })),
    metadata: Metadata,
    expiresAt: Type.Optional(
      Type.String({ format: 'date-time', description: `ISO 8601 with a time zone; default ${V1_DEFAULT_VALIDITY_HOURS} h after creation; must be in the future, at most ${V1_MAX_VALIDITY_DAYS} days ahead` }),
    ),
    redirectUrl: Type.Optional({ ...HttpUrl, description: 'Where the hosted page’s “Back to the shop” link leads after payment (the page also goes there by itself after 5 s)' }),
    successUrl: Type.Optional({ ...HttpUrl, description: 'Where the customer is sent at once after payment; without it the hosted page shows the paid status' }),
  },
  { additionalProperties: false },
);

const NullableString = Type.Union([Type.String(), Type.Null()]);

const v1Common = {
  id: Type.String({ description: 'Opaque identifier' }),
  amount: Amount,
  currency: CurrencyCode,
  description: NullableString,
  status: V1Status,
  paymentUrl: Type.String({ description: 'The hosted payment page: send the customer here' }),
  metadata: Type.Record(Type.String(), Type.Unknown(), { description: 'As given at creation; `{}` when none was' }),
  livemode: PaymentFacts.properties.livemode,
  paymentMethod: PaymentFacts.properties.paymentMethod,
  refundedAmount: PaymentFacts.properties.refundedAmount,
  createdAt: Timestamp,
  expiresAt: Timestamp,
};

export const V1CreatedInvoice = Type.Object(v1Common, { title: 'V1CreatedInvoice', additionalProperties: false });

export const V1Invoice = Type.Object(
  {
    ...v1Common,
    qrCodeUrl: Type.Optional(Type.String({ description: 'SBP invoices: the QR code as a `data:image/png;base64,…` URL (usable as an image source as it is)' })),
    sbpTransactionId: Type.Optional(Type.String({ description: 'After an SBP payment: the SBP transaction id' })),
    payerBank: Type.Optional(Type.String({ description: 'After an SBP payment: the payer’s bank' })),
    paidAt: Type.Optional(Type.String({ format: 'date-time', description: 'Paid invoices only' })),
    review: Type.Union([InvoiceReview, Type.Null()], { description: 'Money awaiting the merchant’s decision (accept or refund, API v2 or the console); null when all is well' }),
  },
  { title: 'V1Invoice', additionalProperties: false },
);

/** v1 ids are opaque strings: anything that is not one of ours is 404, not 400. */
export const V1InvoiceParams = Type.Object({ invoiceId: Type.String({ minLength: 1, maxLength: 200 }) });

export const V1SandboxPayBody = SandboxPayBody;

export const CurrencySettings = Type.Object(
  { enabledCurrencies: Type.Array(CurrencyCode, { minItems: 1, maxItems: CURRENCIES.length, uniqueItems: true, description: 'The currencies invoices may be created in' }) },
  { title: 'CurrencySettings', additionalProperties: false },
);

