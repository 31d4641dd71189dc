import { Type } from '@sinclair/typebox';
import { Amount, HttpUrl, StringEnum, Timestamp, Uuid } from '@pay/schemas';
import { CurrencyCode, V1Status } from '../invoices/v1/schemas';

/** The multipart form's text fields (the file is `file`). */
export const BatchForm = Type.Object(
  {
    sendEmails: Type.Optional(Type.Boolean({ default: false, description: 'E-mail each row’s payment link to its `email` (rows without one get none)' })),
    defaultCurrency: Type.Optional({ ...CurrencyCode, description: 'For rows whose `currency` cell is empty' }),
    defaultRedirectUrl: Type.Optional({ ...HttpUrl, description: 'For rows whose `redirectUrl` cell is empty' }),
  },
  { additionalProperties: false },
);

const NullableString = Type.Union([Type.String(), Type.Null()]);

export const BatchResult = Type.Object(
  {
    batchId: Uuid,
    total: Type.Integer({ minimum: 0, description: 'Data rows read: every row after the header that is not blank; total = created + failed' }),
    created: Type.Integer({ minimum: 0, description: 'Invoices made (or being made, while the batch is processing)' }),
    failed: Type.Integer({ minimum: 0 }),
    invoices: Type.Array(
      Type.Object({ id: Type.String(), amount: Amount, currency: CurrencyCode, externalId: NullableString, paymentUrl: Type.String(), status: V1Status }, { title: 'BatchInvoice', additionalProperties: false }),
    ),
    errors: Type.Array(
      Type.Object(
        {
          row: Type.Integer({
            minimum: 1,
            description: 'The row’s place in the file: 1 is the row after the header, and blank rows count, so row N is the spreadsheet’s row N + 1',
          }),
          externalId: NullableString,
          error: Type.String(),
        },
        { title: 'BatchRowError', additionalProperties: false },
      ),
    ),
  },
  { title: 'BatchUpload', additionalProperties: false },
);

export const BatchSummary = Type.Object(
  {
    batchId: Uuid,
    status: StringEnum(['processing', 'completed'] as const),
    total: Type.Integer({ minimum: 0 }),
    created: Type.Integer({ minimum: 0, description: 'Invoices written so far' }),
    failed: Type.Integer({ minimum: 0 }),
    paidCount: Type.Integer({ minimum: 0, description: 'Of its invoices, paid now' }),
    totalVolume: Type.Number({ description: 'Sum of the paid invoices’ amounts, each in its own currency' }),
    createdAt: Timestamp,
    emails: Type.Union(
      [
        Type.Object(
          {
            sent: Type.Integer({ minimum: 0 }),
            failed: Type.Integer({ minimum: 0, description: 'Whose last attempt failed' }),
            pending: Type.Integer({ minimum: 0, description: 'Not tried yet' }),
            outcome: StringEnum(['sending', 'sent', 'some_failed', 'all_failed'] as const),
            retrying: Type.Boolean({ description: 'A failed e-mail has attempts left and will be tried again' }),
            lastError: Type.Union([Type.String(), Type.Null()], { description: 'An SMTP error of a failed e-mail' }),
          },
          { title: 'BatchEmails', additionalProperties: false },
        ),
        Type.Null(),
      ],
      { description: 'The payment-link e-mails (sendEmails) by state now; null when the batch sends none. Additive to the documented summary.' },
    ),
  },
  { title: 'Batch', additionalProperties: false },
);

export const BatchParams = Type.Object({ batchId: Type.String({ minLength: 1, maxLength: 200 }) });
