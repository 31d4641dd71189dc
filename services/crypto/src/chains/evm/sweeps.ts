import { encodeFunctionData, erc20Abi, getAddress, keccak256, type Address, type Hex, type PrivateKeyAccount, type TransactionReceipt } from 'viem';
import { isUniqueViolation } from '@pay/db';
import { type Clock, type Logger } from '@pay/runtime';
import type { CryptoQueries } from '../../db';
import { confirmedSweptUnits, endSweep, insertSweep, signedSweepsFrom, signedSweepsOn, sweepTargets, type SweepEnd, type SweepTransferRecord as SweepTransfer } from './sweep-store';
import type { EvmNetwork, EvmToken } from './config';
import { receiptOn, tokenUnitsFrom } from './receipts';
import { askAll } from './rpc';

export type { SweepTransferRecord } from './sweep-store';

/**
 * The operator's sweeps of deposit addresses, recorded in `sweep_transfers` (sweep-store.ts).
 *
 * Why they are recorded: a deposit is credited only when the address's balanceOf covers what
 * it has been credited (a log a dishonest node makes up moves no balance). Once swept, the
 * address holds less than that, and a later genuine deposit to it (a payer paying twice, or a
 * remainder) would wait forever. So the check is balanceOf(address) at the deposit's block
 * + what our confirmed sweeps moved out of the address by that block >= what it was credited.
 * Only we hold the address's key, so balance + recorded outflows is everything that ever
 * arrived: the same test as before any sweep, no weaker.
 *
 * Like payout_transactions, a sweep is signed and written before it is broadcast (a crash
 * leaves the bytes to send again, at the same nonce) and is final only at the required depth.
 * A sweep counts only once every provider shows its receipt, successful, in a block canonical
 * at depth, moving exactly the signed units out of the address: a sweep not mined, not deep,
 * reverted or disputed counts nothing. Counting nothing is safe in both directions: a sweep
 * mined after the deposit's block does not lower that block's balance, and one mined before
 * it is at depth whenever the deposit is, so it is settled then and a real deposit never waits
 * on it for long.
 */

/** The sweep's signed transfer of `units` of the token from the deposit address `owner` to `to`, written before anything is sent. */
export async function signSweep(
  db: CryptoQueries,
  clock: Clock,
  net: EvmNetwork,
  token: EvmToken,
  owner: PrivateKeyAccount,
  to: Address,
  units: bigint,
  fees: { gas: bigint; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint },
): Promise<SweepTransfer> {
  const nonce = await net.client.getTransactionCount({ address: owner.address, blockTag: 'pending' });
  const raw = await owner.signTransaction({
    type: 'eip1559',
    chainId: net.chainId,
    nonce,
    to: token.address,
    data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, units] }),
    gas: fees.gas,
    maxFeePerGas: fees.maxFeePerGas,
    maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
  });
  try {
    return await insertSweep(db, {
      txHash: keccak256(raw),
      network: net.network,
      currency: token.currency,
      fromAddress: getAddress(owner.address),
      toAddress: getAddress(to),
      nonce,
      units,
      raw,
      signedAt: clock.now(),
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new Error(`nonce ${nonce} of ${owner.address} on ${net.network} is already signed by another sweep: is a second sweep running?`);
    throw err;
  }
}

/** Sends a sweep's signed bytes; sending them again is harmless (a node that has them or mined their nonce says so). */
export async function broadcastSweep(net: EvmNetwork, sweep: Pick<SweepTransfer, 'raw' | 'txHash'>, logger: Logger): Promise<void> {
  try {
    await net.client.sendRawTransaction({ serializedTransaction: sweep.raw as Hex });
  } catch (err) {
    logger.info({ network: net.network, txHash: sweep.txHash, err: (err as Error).message.split('\n')[0] }, 'sweep broadcast not taken (already known or mined?); its receipt decides');
  }
}

/**
 * A Signed sweep made final where the chain, as every provider gives it, says so at `depth`:
 * Confirmed (successful, moving exactly its units out of the address), or Failed (reverted, or
 * its nonce used at depth by a transaction that is not this one). Anything else (not mined,
 * not deep, providers that disagree or fail) leaves it Signed. Returns the row as it now is.
 */
export async function settleSweep(db: CryptoQueries, clock: Clock, net: EvmNetwork, token: EvmToken, sweep: SweepTransfer, depth: number, logger: Logger): Promise<SweepTransfer> {
  if (sweep.status !== 'Signed') return sweep;
  const { network, providers } = net;
  // Conditional: two processes settling one sweep write it once, and a final row never changes.
  const finish = (end: SweepEnd) => endSweep(db, sweep.txHash, end, clock.now());
  let answers: [(TransactionReceipt | null)[], bigint[]];
  try {
    answers = await Promise.all([
      askAll(network, providers, 'eth_getTransactionReceipt', (c) => receiptOn(c, sweep.txHash)),
      askAll(network, providers, 'eth_blockNumber', (c) => c.getBlockNumber()),
    ]);
  } catch (err) {
    logger.warn({ network, txHash: sweep.txHash, err: (err as Error).message }, 'a provider failed while settling a sweep: it stays unsettled');
    return sweep;
  }
  const [receipts, heads] = answers;
  const head = heads.reduce((a, b) => (b < a ? b : a));
  const deep = head - BigInt(depth) + 1n;
  const receipt = receipts[0];
  if (receipts.every((r) => r === null)) {
    if (deep < 0n) return sweep;
    // Its nonce taken at depth on every provider while no provider has its receipt: another transaction used it (the key used elsewhere).
    const counts = await askAll(network, providers, 'eth_getTransactionCount', (c) => c.getTransactionCount({ address: sweep.fromAddress as Address, blockNumber: deep })).catch(() => null);
    if (counts && counts.every((n) => BigInt(n) > sweep.nonce)) {
      logger.error({ network, txHash: sweep.txHash, address: sweep.fromAddress, nonce: sweep.nonce.toString() }, 'a sweep\'s nonce was used at depth by another transaction: the deposit key is used outside the sweep tool?');
      return finish({ status: 'Failed', reason: `nonce ${sweep.nonce} of ${sweep.fromAddress} was used at depth by another transaction` });
    }
    return sweep;
  }
  if (!receipt || receipts.some((r) => r === null || r.blockHash !== receipt.blockHash || r.status !== receipt.status)) return sweep;
  if (receipt.blockNumber > deep) return sweep;
  const hashes = await askAll(network, providers, 'eth_getBlockByNumber', (c) => c.getBlock({ blockNumber: receipt.blockNumber }).then((b) => b.hash, () => null)).catch(() => null);
  if (!hashes || hashes.some((h) => h !== receipt.blockHash)) return sweep;
  if (receipt.status !== 'success') return finish({ status: 'Failed', blockNumber: receipt.blockNumber, reason: 'the token transfer reverted on chain' });
  const moved = receipts.map((r) => tokenUnitsFrom(token.address, r!, sweep.fromAddress));
  if (moved.some((u) => u.toString() !== sweep.units.toFixed())) {
    // A successful transfer(to, units) moves exactly units from its sender: anything else is a provider to distrust, never a figure to count.
    logger.error({ network, txHash: sweep.txHash, moved: moved.map(String), units: sweep.units.toFixed() }, 'a sweep\'s receipt moves other units than it was signed for: not counted');
    return sweep;
  }
  return finish({ status: 'Confirmed', blockNumber: receipt.blockNumber, movedUnits: sweep.units });
}

/**
 * Token units confirmed sweeps moved out of `address` in blocks up to `block`, settling the
 * address's unsettled sweeps first (at `depth`). See the module's comment for why this is safe.
 */
export async function sweptOutBy(db: CryptoQueries, clock: Clock, net: EvmNetwork, token: EvmToken, address: string, block: number, depth: number, logger: Logger): Promise<bigint> {
  const fromAddress = getAddress(address);
  for (const s of await signedSweepsFrom(db, net.network, token.currency, fromAddress)) await settleSweep(db, clock, net, token, s, depth, logger);
  const confirmed = await confirmedSweptUnits(db, net.network, token.currency, fromAddress, block);
  return confirmed.reduce((sum, units) => sum + BigInt(units), 0n);
}

/** Where sweeps of the token on the network sent it (not counting sweeps that moved nothing), other than `hotWallets`. */
export async function sweepDestinations(db: CryptoQueries, net: EvmNetwork, token: EvmToken, hotWallets: string[]): Promise<string[]> {
  const hot = new Set(hotWallets.map((a) => getAddress(a)));
  return (await sweepTargets(db, net.network, token.currency)).filter((a) => !hot.has(getAddress(a)));
}

/** The sweeps of a network not yet final, oldest first. */
export function unsettledSweeps(db: CryptoQueries, net: EvmNetwork): Promise<SweepTransfer[]> {
  return signedSweepsOn(db, net.network);
}
