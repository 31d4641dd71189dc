import { toJsonNumber } from '../../shared/money';
import type { CreatedWithdrawalRecord, WithdrawalRecord as Withdrawal } from './store';

export type { CreatedWithdrawalRecord } from './store';

/** Create response: id, withdrawalNumber, toAddress, amount, fee, netAmount, currency, network, status, createdAt. */
export function createdWithdrawalJson(w: CreatedWithdrawalRecord) {
  return {
    id: w.id,
    withdrawalNumber: w.withdrawalNumber,
    toAddress: w.toAddress,
    amount: toJsonNumber(w.amount),
    fee: toJsonNumber(w.fee),
    netAmount: toJsonNumber(w.netAmount),
    currency: w.currency,
    network: w.network,
    status: w.status,
    createdAt: w.createdAt.toISOString(),
  };
}

/** List item: id, withdrawalNumber, amount, fee, netAmount, status, txHash. */
export function withdrawalListItemJson(w: Withdrawal) {
  return {
    id: w.id,
    withdrawalNumber: w.withdrawalNumber,
    amount: toJsonNumber(w.amount),
    fee: toJsonNumber(w.fee),
    netAmount: toJsonNumber(w.netAmount),
    status: w.status,
    txHash: w.txHash,
  };
}

/** Single withdrawal and events: the full shape, plus why it failed when it did. */
export function withdrawalJson(w: Withdrawal) {
  return {
    ...createdWithdrawalJson(w),
    txHash: w.txHash,
    confirmations: w.confirmations,
    processedAt: w.processedAt?.toISOString() ?? null,
    completedAt: w.completedAt?.toISOString() ?? null,
    failureReason: w.failureReason,
  };
}
