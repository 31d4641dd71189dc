import { erc20Abi, parseEventLogs, TransactionReceiptNotFoundError, type Hash, type PublicClient, type TransactionReceipt } from 'viem';
import type { EvmNetwork } from './config';

/** The receipt of a transaction in the canonical chain as `client` gives it, or null while it is in none (not yet mined, or reorganised away). */
export async function receiptOn(client: PublicClient, hash: string): Promise<TransactionReceipt | null> {
  try {
    return await client.getTransactionReceipt({ hash: hash as Hash });
  } catch (err) {
    if (err instanceof TransactionReceiptNotFoundError) return null;
    throw err;
  }
}

/** The receipt on the network's first provider (see receiptOn). */
export function receiptOf(net: EvmNetwork, hash: string): Promise<TransactionReceipt | null> {
  return receiptOn(net.client, hash);
}

/** Confirmations of a block: 1 when it is the head. */
export async function confirmationsOf(net: EvmNetwork, blockNumber: bigint): Promise<number> {
  const head = await net.client.getBlockNumber();
  return head >= blockNumber ? Number(head - blockNumber) + 1 : 0;
}

/** Base units of the token at `token` the receipt's Transfer logs move to (or from) `address`. */
function tokenUnits(token: string, receipt: TransactionReceipt, side: 'to' | 'from', address: string): bigint {
  const logs = parseEventLogs({ abi: erc20Abi, eventName: 'Transfer', logs: receipt.logs.filter((l) => l.address.toLowerCase() === token.toLowerCase()) });
  return logs.filter((l) => l.args[side].toLowerCase() === address.toLowerCase()).reduce((sum, l) => sum + l.args.value, 0n);
}

/** Base units of the token at `token` the receipt moves to `to`. */
export const tokenUnitsTo = (token: string, receipt: TransactionReceipt, to: string): bigint => tokenUnits(token, receipt, 'to', to);

/** Base units of the token at `token` the receipt moves out of `from`. */
export const tokenUnitsFrom = (token: string, receipt: TransactionReceipt, from: string): bigint => tokenUnits(token, receipt, 'from', from);
