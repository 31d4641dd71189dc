import { decodeFunctionData, encodeFunctionData, erc20Abi, formatEther, formatGwei, keccak256, parseTransaction, type Hex, type PrivateKeyAccount } from 'viem';
import type { Clock, Logger } from '@pay/runtime';
import type { CryptoQueries } from '../../db';
import type { Network } from '../../generated/prisma/client';
import { money } from '../../shared/money';
import type { PayoutRef, PayoutRequest, PayoutSent, PayoutState, PayoutTx } from '../port';
import { fromUnits, toUnits } from './amounts';
import { tokenAt, tokenOf, type EvmNetwork, type EvmToken } from './config';
import { confirmationsOf, receiptOf } from './receipts';
import {
  anyPayoutSigned,
  anyPayoutWallet,
  insertPayoutTransaction,
  lockPayoutWallet,
  payoutTransactionsOf,
  payoutWalletAddresses,
  registerPayoutWallet,
  setNextNonce,
  type PayoutTransactionRecord as PayoutTransaction,
} from './payout-store';

const NATIVE: Record<string, string> = { Ethereum: 'ETH', BSC: 'BNB' };
/** A replacement must outbid the transaction it replaces; nodes ask for at least 10% more. */
const BUMP_PERCENT = 125n;

export interface PayoutOptions {
  gasLimit: number;
  /** A payout not mined this long after it was sent is replaced at the same nonce, with higher fees. */
  stuckAfterMs: number;
  /** The highest maxFeePerGas a payout is signed with, per network (PAYOUT_MAX_FEE_GWEI_*). */
  feeCeiling: Map<Network, bigint>;
}

/** Whether a transaction was ever signed for this withdrawal. */
export async function hasSignedPayout(tx: PayoutTx, withdrawalId: string): Promise<boolean> {
  return anyPayoutSigned(tx, withdrawalId);
}

/** Whether a process that holds the hot wallet's key has registered it on `network`. */
export async function hasPayoutWallet(db: CryptoQueries, network: Network): Promise<boolean> {
  return anyPayoutWallet(db, network);
}

/** Every hot wallet registered on `network` (a replaced key's old wallet may still hold funds). */
export async function payoutWallets(db: CryptoQueries, network: Network): Promise<string[]> {
  return payoutWalletAddresses(db, network);
}

/**
 * The payouts of `payout_wallets` and `payout_transactions` (whose statements are in payout-store.ts).
 *
 * Sends withdrawals as token transfers from the hot wallet, in the withdrawal step's
 * transaction (which holds the withdrawal's lock). Every transaction is signed under the lock
 * of the wallet's row, with the nonce the row holds, and written to payout_transactions, with
 * the withdrawal's move, before it is broadcast: two workers never sign the same nonce, a
 * crash after the commit leaves the signed bytes to broadcast again, and a crash before it
 * leaves nothing sent. One withdrawal is signed once; only a stuck one gets a replacement, at
 * the same nonce and never above the network's fee ceiling, so at most one of them is mined.
 */
export class EvmPayoutSigner {
  constructor(
    private readonly db: CryptoQueries,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly networks: Map<Network, EvmNetwork>,
    readonly account: PrivateKeyAccount,
    private readonly opts: PayoutOptions,
  ) {}

  /** Makes the wallet known on each network (so API processes, which hold no key, accept live withdrawals). */
  async register(): Promise<void> {
    for (const net of this.networks.values()) {
      const nonce = await net.client.getTransactionCount({ address: this.account.address, blockTag: 'pending' });
      await registerPayoutWallet(this.db, net.network, this.account.address, nonce);
    }
  }

  async send(req: PayoutRequest, tx: PayoutTx): Promise<PayoutSent> {
    const net = this.networks.get(req.network);
    if (!net) return { state: 'refused', reason: `no live ${req.network} connection signs payouts` };
    // Signed already (by a process that died before the withdrawal moved on): the same bytes, never new ones.
    const signed = await payoutTransactionsOf(tx, req.payoutId);
    if (signed.length > 0) {
      const latest = signed.at(-1)!;
      return { state: 'sent', txHash: signed[0]!.txHash, fromAddress: signed[0]!.fromAddress, broadcast: () => this.broadcast(net, latest) };
    }
    const token = tokenOf(net, req.currency);
    const units = toUnits(money(req.amount), token.decimals);
    const fees = this.capped(net, await net.client.estimateFeesPerGas());
    const problem = await this.fundsProblem(net, token, units, fees.maxFeePerGas);
    if (problem) return { state: 'refused', reason: `${problem}; top it up, then withdraw again` };
    const chainNonce = await net.client.getTransactionCount({ address: this.account.address, blockTag: 'pending' });
    const stored = await lockPayoutWallet(tx, net.network, this.account.address);
    if (stored === null) throw new Error(`hot wallet ${this.account.address} is not registered on ${net.network}`);
    // Something else sent from this wallet too (a manual transfer): never reuse its nonces.
    const nonce = stored > BigInt(chainNonce) ? stored : BigInt(chainNonce);
    const row = await this.sign(net, token.address, req.payoutId, req.toAddress, units, nonce, fees.maxFeePerGas, fees.maxPriorityFeePerGas);
    await insertPayoutTransaction(tx, row);
    await setNextNonce(tx, net.network, this.account.address, nonce + 1n);
    return { state: 'sent', txHash: row.txHash, fromAddress: row.fromAddress, broadcast: () => this.broadcast(net, row) };
  }

  /**
   * Final only at the required depth: a transaction that reverted, like one that succeeded, may
   * be reorganised away and mined again with the other outcome. None mined: dropped ones are
   * sent again at the same nonce, a stuck one is replaced at a higher fee up to the network's
   * ceiling, and a payout that cannot be replaced (ceiling, gas, tokens) is held, never failed.
   */
  async payoutState(ref: PayoutRef, tx: PayoutTx): Promise<PayoutState> {
    const net = this.networks.get(ref.network)!;
    const sent = await payoutTransactionsOf(tx, ref.payoutId);
    for (const t of sent) {
      const receipt = await receiptOf(net, t.txHash);
      if (!receipt) continue;
      const blockNumber = Number(receipt.blockNumber);
      const confirmations = await confirmationsOf(net, receipt.blockNumber);
      if (confirmations < ref.requiredConfirmations) return { state: 'pending', confirmations, blockNumber, txHash: t.txHash };
      if (receipt.status !== 'success') {
        return { state: 'failed', reason: `the token transfer reverted on chain (${t.txHash}); the amount is back in the balance`, blockNumber, txHash: t.txHash };
      }
      return { state: 'confirmed', confirmations, blockNumber, txHash: t.txHash };
    }
    const latest = sent.at(-1);
    if (!latest) return { state: 'failed', reason: 'no signed transaction was found for this withdrawal', blockNumber: null };
    if (await this.nonceTakenAtDepth(net, latest.nonce, ref.requiredConfirmations)) {
      // Its nonce is final under a transaction we cannot see as ours: the key used elsewhere, or a
      // node that hides our receipt. Failing would release funds a lying node may have paid out:
      // held for an operator instead.
      return {
        state: 'pending',
        confirmations: 0,
        blockNumber: null,
        held: `nonce ${latest.nonce} of the hot wallet is used at depth, but by none of this withdrawal's transactions: check the hot wallet's history before anything else`,
      };
    }
    if (this.clock.now().getTime() - latest.sentAt.getTime() >= this.opts.stuckAfterMs) return this.replace(net, tx, latest);
    // Dropped from a pool, or never reached it: the same bytes again.
    return { state: 'pending', confirmations: 0, blockNumber: null, held: null, broadcast: () => this.broadcast(net, latest) };
  }

  /** Whether the wallet's transaction count, `depth` blocks deep, is past `nonce`. */
  private async nonceTakenAtDepth(net: EvmNetwork, nonce: bigint, depth: number): Promise<boolean> {
    const head = await net.client.getBlockNumber();
    const deep = head - BigInt(depth) + 1n;
    if (deep < 0n) return false;
    const count = await net.client.getTransactionCount({ address: this.account.address, blockNumber: deep });
    return BigInt(count) > nonce;
  }

  /** The network's ceiling (PAYOUT_MAX_FEE_GWEI_*) applied to a fee estimate. */
  private capped(net: EvmNetwork, fees: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }) {
    const ceiling = this.opts.feeCeiling.get(net.network)!;
    const maxFeePerGas = fees.maxFeePerGas < ceiling ? fees.maxFeePerGas : ceiling;
    return { maxFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas < maxFeePerGas ? fees.maxPriorityFeePerGas : maxFeePerGas };
  }

  /** Why the hot wallet cannot pay `units` of the token and the gas at `maxFeePerGas`, or null. */
  private async fundsProblem(net: EvmNetwork, token: EvmToken, units: bigint, maxFeePerGas: bigint): Promise<string | null> {
    const address = this.account.address;
    const [tokens, native] = await Promise.all([
      net.client.readContract({ address: token.address, abi: erc20Abi, functionName: 'balanceOf', args: [address] }),
      net.client.getBalance({ address }),
    ]);
    if (tokens < units) {
      return `the hot wallet ${address} holds ${fromUnits(tokens, token.decimals).toFixed()} ${token.currency}, less than the ${fromUnits(units, token.decimals).toFixed()} to send`;
    }
    const gas = BigInt(this.opts.gasLimit) * maxFeePerGas;
    if (native < gas) {
      return `the hot wallet ${address} holds ${formatEther(native)} ${NATIVE[net.network]}, less than the ${formatEther(gas)} the transfer may cost in gas`;
    }
    return null;
  }

  private async sign(net: EvmNetwork, token: Hex, withdrawalId: string, to: string, units: bigint, nonce: bigint, maxFeePerGas: bigint, maxPriorityFeePerGas: bigint): Promise<PayoutTransaction> {
    const raw = await this.account.signTransaction({
      type: 'eip1559',
      chainId: net.chainId,
      to: token,
      data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to as Hex, units] }),
      gas: BigInt(this.opts.gasLimit),
      nonce: Number(nonce),
      maxFeePerGas,
      maxPriorityFeePerGas,
    });
    return {
      txHash: keccak256(raw),
      withdrawalId,
      network: net.network,
      fromAddress: this.account.address,
      nonce,
      raw,
      maxFeePerGas: maxFeePerGas.toString(),
      maxPriorityFeePerGas: maxPriorityFeePerGas.toString(),
      sentAt: this.clock.now(),
    };
  }

  /**
   * The same transfer at the same nonce, outbidding the stuck one (and today's fees) up to the
   * network's ceiling, once the hot wallet is seen to hold the tokens and the gas. Otherwise the
   * payout is held: the stuck bytes are sent again and it waits (crypto_payouts_held alerts).
   */
  private async replace(net: EvmNetwork, tx: PayoutTx, stuck: PayoutTransaction): Promise<PayoutState> {
    const held = (reason: string): PayoutState => ({ state: 'pending', confirmations: 0, blockNumber: null, held: reason, broadcast: () => this.broadcast(net, stuck) });
    const fees = await net.client.estimateFeesPerGas();
    const bump = (old: { toString(): string }, now: bigint) => {
      const raised = (BigInt(old.toString()) * BUMP_PERCENT + 99n) / 100n;
      return raised > now ? raised : now;
    };
    const next = this.capped(net, { maxFeePerGas: bump(stuck.maxFeePerGas, fees.maxFeePerGas), maxPriorityFeePerGas: bump(stuck.maxPriorityFeePerGas, fees.maxPriorityFeePerGas) });
    // Nodes take a replacement only when it raises both caps by 10%.
    const outbids = (now: bigint, old: { toString(): string }) => now * 100n >= BigInt(old.toString()) * 110n;
    if (!outbids(next.maxFeePerGas, stuck.maxFeePerGas) || !outbids(next.maxPriorityFeePerGas, stuck.maxPriorityFeePerGas)) {
      const ceiling = formatGwei(this.opts.feeCeiling.get(net.network)!);
      return held(`stuck at the fee ceiling of ${ceiling} gwei (PAYOUT_MAX_FEE_GWEI_${net.network.toUpperCase()}): it waits for fees to fall or the ceiling to be raised`);
    }
    const call = decodeTransfer(stuck.raw);
    const token = tokenAt(net, call.token);
    const problem = token ? await this.fundsProblem(net, token, call.units, next.maxFeePerGas) : `its token ${call.token} is no longer configured`;
    if (problem) return held(`cannot be replaced: ${problem}; it waits until the hot wallet is topped up`);
    const row = await this.sign(net, call.token, stuck.withdrawalId, call.to, call.units, stuck.nonce, next.maxFeePerGas, next.maxPriorityFeePerGas);
    await insertPayoutTransaction(tx, row);
    this.logger.warn({ network: net.network, withdrawalId: stuck.withdrawalId, stuck: stuck.txHash, replacement: row.txHash }, 'payout stuck: replaced with a higher fee at the same nonce');
    return { state: 'pending', confirmations: 0, blockNumber: null, held: null, broadcast: () => this.broadcast(net, row) };
  }

  /**
   * Sends signed bytes; sending them again is harmless. A node that already has them, or has
   * mined their nonce, says so with an error, which is the answer we wanted.
   */
  private async broadcast(net: EvmNetwork, tx: Pick<PayoutTransaction, 'raw' | 'txHash' | 'withdrawalId'>): Promise<void> {
    try {
      await net.client.sendRawTransaction({ serializedTransaction: tx.raw as Hex });
    } catch (err) {
      this.logger.info({ network: net.network, txHash: tx.txHash, withdrawalId: tx.withdrawalId, err: (err as Error).message.split('\n')[0] }, 'payout broadcast not taken (already known or mined?); its receipt decides');
    }
  }
}

function decodeTransfer(raw: string): { token: Hex; to: string; units: bigint } {
  const tx = parseTransaction(raw as Hex);
  const { args } = decodeFunctionData({ abi: erc20Abi, data: tx.data! });
  return { token: tx.to!, to: args[0] as string, units: args[1] as bigint };
}
