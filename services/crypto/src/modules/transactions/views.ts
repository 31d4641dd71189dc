import type { TransactionRecord as Transaction } from './store';
import { toJsonNumber } from '../../shared/money';

/** The list item: every field of the spec but blockNumber. */
export function transactionJson(t: Transaction) {
  return {
    id: t.id,
    invoiceId: t.invoiceId,
    txHash: t.txHash,
    fromAddress: t.fromAddress,
    toAddress: t.toAddress,
    amount: toJsonNumber(t.amount),
    currency: t.currency,
    network: t.network,
    status: t.status,
    confirmations: t.confirmations,
    requiredConfirmations: t.requiredConfirmations,
    createdAt: t.createdAt.toISOString(),
    confirmedAt: t.confirmedAt?.toISOString() ?? null,
  };
}

/** The single-transaction response (and the event) add blockNumber. */
export function transactionDetailJson(t: Transaction) {
  return { ...transactionJson(t), blockNumber: t.blockNumber === null ? null : Number(t.blockNumber) };
}
