import { Type } from '@sinclair/typebox';
import { Amount, NullableTimestamp, PageQuery, Timestamp, Uuid, StringEnum } from '@pay/schemas';
import { CurrencyCode, NetworkName } from '../invoices/schemas';

/** A valid Tron address, for the documents' examples (their currency is USDT_TRC20, the first listed). */
const TRON_EXAMPLE_ADDRESS = 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7';

export const WithdrawalStatus = StringEnum(['Pending', 'Processing', 'Completed', 'Failed'] as const, { title: 'WithdrawalStatus' });

export const CreateWithdrawalBody = Type.Object(
  {
    toAddress: Type.String({ minLength: 1, maxLength: 128, description: 'Recipient wallet on the currency’s network', examples: [TRON_EXAMPLE_ADDRESS] }),
    amount: Type.Number({ description: 'Decimal amount, at most 6 decimal places; the 1% fee is taken from it' }),
    currency: CurrencyCode,
  },
  { additionalProperties: false },
);

export const CreatedWithdrawal = Type.Object({
  id: Uuid,
  withdrawalNumber: Type.String({ pattern: '^WD-\\d{8}-[A-Z0-9]+$', examples: ['WD-20260115-A1B2C3'] }),
  toAddress: Type.String({ examples: [TRON_EXAMPLE_ADDRESS] }),
  amount: Amount,
  fee: Amount,
  netAmount: Amount,
  currency: CurrencyCode,
  network: NetworkName,
  status: WithdrawalStatus,
  createdAt: Timestamp,
}, { title: 'CreatedWithdrawal' });

export const WithdrawalDetail = Type.Composite([
  CreatedWithdrawal,
  Type.Object({
    txHash: Type.Union([Type.String(), Type.Null()]),
    confirmations: Type.Integer(),
    processedAt: NullableTimestamp,
    completedAt: NullableTimestamp,
    failureReason: Type.Union([Type.String(), Type.Null()]),
  }),
], { title: 'Withdrawal' });

export const WithdrawalListItem = Type.Object({
  id: Uuid,
  withdrawalNumber: Type.String(),
  amount: Amount,
  fee: Amount,
  netAmount: Amount,
  status: WithdrawalStatus,
  txHash: Type.Union([Type.String(), Type.Null()]),
}, { title: 'WithdrawalListItem' });

export const BalanceEntry = Type.Object({
  currency: CurrencyCode,
  currencyName: Type.String(),
  network: NetworkName,
  networkName: Type.String(),
  available: Amount,
  pending: Amount,
  total: Amount,
}, { title: 'Balance' });

export const BalanceData = Type.Object({ balances: Type.Array(BalanceEntry), totalUsdValue: Amount }, { title: 'Balances' });

export const ListWithdrawalsQuery = Type.Object({ ...PageQuery, status: Type.Optional(WithdrawalStatus) }, { additionalProperties: false });
export const WithdrawalParams = Type.Object({ withdrawalId: Uuid });
