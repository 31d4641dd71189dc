import { erc20Abi } from 'viem';
import type { Clock, Logger } from '@pay/runtime';
import { money, type Money } from '../../shared/money';
import type { TransferRef, TransferState } from '../port';
import { fromUnits, toUnits } from './amounts';
import { tokenOf, type EvmNetwork } from './config';
import { rpcDisagreements, unbackedDeposits } from './metrics';
import { askAll } from './rpc';
import { receiptOn, tokenUnitsTo } from './receipts';

/** What the deposit address has been credited in a token by block `block` (confirmed deposits, this one not included). */
export type CreditedTo = (ref: TransferRef, block: number) => Promise<Money>;
/** Token base units the operator's confirmed sweeps moved out of the deposit address in blocks up to `block` (./sweeps.ts). */
export type SweptOut = (ref: TransferRef, block: number) => Promise<bigint>;

const waiting = (confirmations = 0, blockNumber: number | null = null): TransferState => ({ state: 'pending', confirmations, blockNumber });

/**
 * An incoming transfer's state, from its receipt in the canonical chain as every provider of
 * the network gives it: confirmations count from the block that holds it now, on the
 * providers' common head. It is credited only when
 * - every provider returns the same receipt (block hash, status, amount moved to the address),
 * - that block is canonical on every provider (its hash at that height) at the required depth,
 * - and the token's balanceOf(deposit address) at that block, on every provider, plus what
 *   our confirmed sweeps moved out of the address by that block, covers what the address has
 *   been credited with this transfer: a log a dishonest node made up moves no balance.
 * A provider that fails or differs makes it wait (Pending), never decides. A transfer whose
 * block was reorganised away has no receipt: it stays Pending (never credited) until it is
 * mined again, in which case it counts from its new block, or until `droppedAfterMs` has
 * passed, when it fails. A revert or a changed amount fails it only at the required depth, so
 * a reorganisation cannot make a real payment fail.
 */
export async function depositState(
  net: EvmNetwork,
  ref: TransferRef,
  clock: Clock,
  droppedAfterMs: number,
  creditedTo: CreditedTo,
  sweptOut: SweptOut,
  logger: Logger,
): Promise<TransferState> {
  const { network, providers } = net;
  const token = tokenOf(net, ref.currency);
  const receipts = await askAll(network, providers, 'eth_getTransactionReceipt', (c) => receiptOn(c, ref.txHash));
  if (receipts.every((r) => r === null)) {
    if (clock.now().getTime() - ref.seenAt.getTime() >= droppedAfterMs) {
      return { state: 'failed', reason: 'the transfer left the chain in a reorganisation and was not mined again', blockNumber: null };
    }
    return waiting();
  }
  const receipt = receipts[0]!;
  const same = receipt !== null && receipts.every((r) => r !== null && r.blockHash === receipt.blockHash && r.status === receipt.status);
  const moved = receipts.map((r) => (r ? tokenUnitsTo(token.address, r, ref.toAddress) : -1n));
  if (!receipt || !same || moved.some((u) => u !== moved[0])) {
    rpcDisagreements.inc({ network, what: 'receipt' });
    logger.warn({ network, txHash: ref.txHash }, 'providers disagree on a deposit receipt: it waits until they agree');
    return waiting();
  }
  const blockNumber = Number(receipt.blockNumber);
  // Canonical at depth on every provider: the block at that height is the receipt's, and the common head is deep enough above it.
  const [heads, hashes] = await Promise.all([
    askAll(network, providers, 'eth_blockNumber', (c) => c.getBlockNumber()),
    askAll(network, providers, 'eth_getBlockByNumber', (c) => c.getBlock({ blockNumber: receipt.blockNumber }).then((b) => b.hash, () => null)),
  ]);
  if (hashes.some((h) => h !== receipt.blockHash)) return waiting();
  const head = heads.reduce((a, b) => (b < a ? b : a));
  const confirmations = head >= receipt.blockNumber ? Number(head - receipt.blockNumber) + 1 : 0;
  if (confirmations < ref.requiredConfirmations) return waiting(confirmations, blockNumber);

  if (receipt.status !== 'success') return { state: 'failed', reason: 'the transfer reverted on chain', blockNumber };
  // Mined again after a reorganisation, a transaction can do something else than it first did.
  const amount = fromUnits(moved[0]!, token.decimals);
  if (!amount.eq(money(ref.amount))) {
    return { state: 'failed', reason: `the transaction now moves ${amount.toFixed()} to the deposit address, not the ${ref.amount} first seen`, blockNumber };
  }
  const credited = toUnits((await creditedTo(ref, blockNumber)).add(money(ref.amount)), token.decimals);
  // What left the address in our sweeps is not there to be read, and was counted when it arrived.
  const swept = await sweptOut(ref, blockNumber);
  const owed = credited - swept;
  const balances = await askAll(network, providers, 'balanceOf', (c) =>
    c.readContract({ address: token.address, abi: erc20Abi, functionName: 'balanceOf', args: [ref.toAddress as `0x${string}`], blockNumber: receipt.blockNumber }),
  );
  if (balances.some((b) => b < owed)) {
    unbackedDeposits.inc({ network, currency: ref.currency });
    logger.error(
      { network, currency: ref.currency, txHash: ref.txHash, address: ref.toAddress, block: blockNumber, balances: balances.map((b) => fromUnits(b, token.decimals).toFixed()), credited: fromUnits(credited, token.decimals).toFixed(), swept: fromUnits(swept, token.decimals).toFixed() },
      "a deposit's address holds less than it would have been credited: not credited (an invented log, or a dishonest provider?)",
    );
    return waiting(confirmations, blockNumber);
  }
  return { state: 'confirmed', confirmations, blockNumber };
}
