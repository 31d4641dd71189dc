import { Type } from '@sinclair/typebox';
import { Amount, NullableTimestamp, PageQuery, Timestamp, Uuid, StringEnum } from '@pay/schemas';
import { CurrencyCode, NetworkName } from '../invoices/schemas';

export const TransactionStatus = StringEnum(['Pending', 'Confirmed', 'Failed'] as const, { title: 'TransactionStatus' });

export const TransactionItem = Type.Object({
  id: Uuid,
  invoiceId: Uuid,
  txHash: Type.String(),
  fromAddress: Type.String(),
  toAddress: Type.String(),
  amount: Amount,
  currency: CurrencyCode,
  network: NetworkName,
  status: TransactionStatus,
  confirmations: Type.Integer(),
  requiredConfirmations: Type.Integer(),
  createdAt: Timestamp,
  confirmedAt: NullableTimestamp,
}, { title: 'TransactionListItem' });

export const TransactionDetail = Type.Composite([
  TransactionItem,
  Type.Object({ blockNumber: Type.Union([Type.Integer(), Type.Null()]) }),
], { title: 'Transaction' });

export const ListTransactionsQuery = Type.Object({ ...PageQuery, invoiceId: Type.Optional(Uuid) }, { additionalProperties: false });
export const TransactionParams = Type.Object({ transactionId: Uuid });

export const SandboxTransferBody = Type.Object(
  {
    invoiceId: Uuid,
    amount: Type.Number({ description: 'Amount transferred, at most 6 decimal places' }),
    fromAddress: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'Sender; a random valid address when omitted. The zero address makes the transfer fail on chain.' })),
    txHash: Type.Optional(Type.String({ pattern: '^(0x)?[0-9a-fA-F]{64}$', examples: [`0x${'ab'.repeat(32)}`], description: 'A random hash when omitted' })),
  },
  { additionalProperties: false },
);
