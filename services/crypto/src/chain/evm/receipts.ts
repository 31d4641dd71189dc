import { erc20Abi, parseEventLogs, TransactionReceiptNotFoundError, type Hash, type TransactionReceipt } from 'viem';
import type { EvmNetwork } from './config';

/** The receipt of a transaction in the canonical chain, or null while it is in none (not yet mined, or reorganised away). */
export async function receiptOf(net: EvmNetwork, hash: string): Promise<TransactionReceipt | null> {
  try {
    return await net.client.getTransactionReceipt({ hash: hash as Hash });
  } catch (err) {
    if (err instanceof TransactionReceiptNotFoundError) return null;
    throw err;
  }
}

/** Confirmations of a block: 1 when it is the head. */
export async function confirmationsOf(net: EvmNetwork, blockNumber: bigint): Promise<number> {
  const head = await net.client.getBlockNumber();
  return head >= blockNumber ? Number(head - blockNumber) + 1 : 0;
}

/** Base units of the token at `token` the receipt moves to `to`. */
export function tokenUnitsTo(token: string, receipt: TransactionReceipt, to: string): bigint {
  const logs = parseEventLogs({ abi: erc20Abi, eventName: 'Transfer', logs: receipt.logs.filter((l) => l.address.toLowerCase() === token.toLowerCase()) });
  return logs.filter((l) => l.args.to.toLowerCase() === to.toLowerCase()).reduce((sum, l) => sum + l.args.value, 0n);
}
