import { Type } from '@sinclair/typebox';
import { Amount, NullableTimestamp, PageQuery, Timestamp, Uuid, StringEnum } from '@pay/schemas';
import { CURRENCY_CODES, NETWORKS } from '../../shared/currencies';

export const CurrencyCode = StringEnum(CURRENCY_CODES, { description: 'Currency code', title: 'Currency' });
export const NetworkName = StringEnum(NETWORKS, { title: 'Network' });
export const InvoiceStatus = StringEnum(['Pending', 'PartiallyPaid', 'Paid', 'Underpaid', 'Expired'] as const, { title: 'InvoiceStatus' });

export const CreateInvoiceBody = Type.Object(
  {
    amount: Type.Number({ exclusiveMinimum: 0, description: 'Decimal amount, at most 6 decimal places' }),
    currency: CurrencyCode,
    description: Type.Optional(Type.String({ maxLength: 500 })),
    expiresInMinutes: Type.Optional(Type.Integer({ minimum: 1, maximum: 10080, description: 'Default 60' })),
  },
  { additionalProperties: false },
);

export const CreatedInvoice = Type.Object({
  id: Uuid,
  amount: Amount,
  currency: CurrencyCode,
  network: NetworkName,
  address: Type.String({ description: 'Deposit address of this invoice alone' }),
  status: InvoiceStatus,
  expiresAt: Timestamp,
  paymentUrl: Type.String(),
}, { title: 'CreatedInvoice' });

export const InvoiceDetail = Type.Composite([
  CreatedInvoice,
  Type.Object({
    description: Type.Union([Type.String(), Type.Null()]),
    amountReceived: Amount,
    paidAt: NullableTimestamp,
    createdAt: Timestamp,
  }),
], { title: 'Invoice' });

export const ListInvoicesQuery = Type.Object({ ...PageQuery, status: Type.Optional(InvoiceStatus) }, { additionalProperties: false });
export const InvoiceParams = Type.Object({ invoiceId: Uuid });
