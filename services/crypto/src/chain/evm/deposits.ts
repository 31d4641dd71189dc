import type { Clock } from '@pay/kit';
import { money } from '../../money';
import type { TransferRef, TransferState } from '../chain';
import { fromUnits } from './amounts';
import type { EvmNetwork } from './config';
import { confirmationsOf, receiptOf, tokenUnitsTo } from './receipts';

/**
 * An incoming transfer's state, from its receipt in the canonical chain: confirmations count
 * from the block that holds it now. A transfer whose block was reorganised away has no
 * receipt: it stays Pending with none (never credited) until it is mined again, in which
 * case it counts from its new block, or until `droppedAfterMs` has passed, when it fails.
 */
export async function depositState(net: EvmNetwork, ref: TransferRef, clock: Clock, droppedAfterMs: number): Promise<TransferState> {
  const receipt = await receiptOf(net, ref.txHash);
  if (!receipt) {
    if (clock.now().getTime() - ref.seenAt.getTime() >= droppedAfterMs) {
      return { state: 'failed', reason: 'the transfer left the chain in a reorganisation and was not mined again', blockNumber: null };
    }
    return { state: 'pending', confirmations: 0, blockNumber: null };
  }
  const blockNumber = Number(receipt.blockNumber);
  if (receipt.status !== 'success') return { state: 'failed', reason: 'the transfer reverted on chain', blockNumber };
  // Mined again after a reorganisation, a transaction can do something else than it first did.
  const moved = fromUnits(tokenUnitsTo(net, receipt, ref.toAddress), net.decimals);
  if (!moved.eq(money(ref.amount))) {
    return { state: 'failed', reason: `the transaction now moves ${moved.toFixed()} to the deposit address, not the ${ref.amount} first seen`, blockNumber };
  }
  const confirmations = await confirmationsOf(net, receipt.blockNumber);
  if (confirmations >= ref.requiredConfirmations) return { state: 'confirmed', confirmations, blockNumber };
  return { state: 'pending', confirmations, blockNumber };
}
