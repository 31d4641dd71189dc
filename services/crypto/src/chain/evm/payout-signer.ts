import { decodeFunctionData, encodeFunctionData, erc20Abi, formatEther, keccak256, parseTransaction, type Hex, type PrivateKeyAccount } from 'viem';
import { TRANSACTION_OPTIONS, type Clock, type Logger } from '@pay/kit';
import { tablesIn, type CryptoDb } from '../../db';
import type { Network, PayoutTransaction } from '../../generated/prisma/client';
import { money } from '../../money';
import type { PayoutRef, PayoutRequest, PayoutSent, PayoutState } from '../chain';
import { fromUnits, toUnits } from './amounts';
import { tokenOf, type EvmNetwork, type EvmToken } from './config';
import { confirmationsOf, receiptOf } from './receipts';

const NATIVE: Record<string, string> = { Ethereum: 'ETH', BSC: 'BNB' };
/** A replacement must outbid the transaction it replaces; nodes ask for at least 10% more. */
const BUMP_PERCENT = 125n;

export interface PayoutOptions {
  gasLimit: number;
  /** A payout not mined this long after it was sent is replaced at the same nonce, with higher fees. */
  stuckAfterMs: number;
}

/** Whether a process that holds the hot wallet's key has registered it on `network`. */
export async function hasPayoutWallet(db: CryptoDb, network: Network): Promise<boolean> {
  return (await db.payoutWallet.count({ where: { network } })) > 0;
}

/** Every hot wallet registered on `network` (a replaced key's old wallet may still hold funds). */
export async function payoutWallets(db: CryptoDb, network: Network): Promise<string[]> {
  return (await db.payoutWallet.findMany({ where: { network }, select: { address: true }, orderBy: { address: 'asc' } })).map((w) => w.address);
}

/**
 * The one owner of `payout_wallets` and `payout_transactions`.
 *
 * Sends withdrawals as token transfers from the hot wallet. Every transaction is signed under
 * the lock of the wallet's row, with the nonce the row holds, and written to
 * payout_transactions before it is broadcast: two workers never sign the same nonce, a
 * crash after signing leaves the signed bytes to broadcast again, and a crash before the
 * write leaves nothing sent. One withdrawal is signed once; only a stuck one gets a
 * replacement, at the same nonce, so at most one of them can be mined.
 */
export class EvmPayoutSigner {
  constructor(
    private readonly db: CryptoDb,
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
      await this.db.payoutWallet.createMany({ data: [{ network: net.network, address: this.account.address, nextNonce: nonce }], skipDuplicates: true });
    }
  }

  async send(req: PayoutRequest): Promise<PayoutSent> {
    const net = this.networks.get(req.network);
    if (!net) return { state: 'refused', reason: `no live ${req.network} connection signs payouts` };
    const signed = await this.db.payoutTransaction.findFirst({ where: { withdrawalId: req.payoutId }, orderBy: { sentAt: 'asc' } });
    if (signed) {
      await this.broadcast(net, signed);
      return { state: 'sent', txHash: signed.txHash, fromAddress: signed.fromAddress };
    }
    const token = tokenOf(net, req.currency);
    const units = toUnits(money(req.amount), token.decimals);
    const fees = await net.client.estimateFeesPerGas();
    const problem = await this.fundsProblem(net, token, units, fees.maxFeePerGas);
    if (problem) return { state: 'refused', reason: problem };
    const chainNonce = await net.client.getTransactionCount({ address: this.account.address, blockTag: 'pending' });
    const tx = await this.db.$transaction(async (db) => {
      const wallet = await tablesIn(db)
        .selectFrom('payout_wallets')
        .select('next_nonce')
        .where('network', '=', net.network)
        .where('address', '=', this.account.address)
        .forUpdate()
        .executeTakeFirst();
      if (!wallet) throw new Error(`hot wallet ${this.account.address} is not registered on ${net.network}`);
      // Another worker signed this withdrawal while we waited for the lock.
      const raced = await db.payoutTransaction.findFirst({ where: { withdrawalId: req.payoutId } });
      if (raced) return raced;
      // Something else sent from this wallet too (a manual transfer): never reuse its nonces.
      const stored = BigInt(wallet.next_nonce);
      const nonce = stored > BigInt(chainNonce) ? stored : BigInt(chainNonce);
      const row = await this.sign(net, token.address, req.payoutId, req.toAddress, units, nonce, fees.maxFeePerGas, fees.maxPriorityFeePerGas);
      const created = await db.payoutTransaction.create({ data: row });
      await db.payoutWallet.update({ where: { network_address: { network: net.network, address: this.account.address } }, data: { nextNonce: nonce + 1n } });
      return created;
    }, TRANSACTION_OPTIONS);
    await this.broadcast(net, tx);
    return { state: 'sent', txHash: tx.txHash, fromAddress: tx.fromAddress };
  }

  async payoutState(ref: PayoutRef): Promise<PayoutState> {
    const net = this.networks.get(ref.network)!;
    const sent = await this.db.payoutTransaction.findMany({ where: { withdrawalId: ref.payoutId }, orderBy: { sentAt: 'asc' } });
    for (const tx of sent) {
      const receipt = await receiptOf(net, tx.txHash);
      if (!receipt) continue;
      const blockNumber = Number(receipt.blockNumber);
      if (receipt.status !== 'success') {
        return { state: 'failed', reason: `the token transfer reverted on chain (${tx.txHash}); the amount is back in the balance`, blockNumber, txHash: tx.txHash };
      }
      const confirmations = await confirmationsOf(net, receipt.blockNumber);
      if (confirmations >= ref.requiredConfirmations) return { state: 'confirmed', confirmations, blockNumber, txHash: tx.txHash };
      return { state: 'pending', confirmations, blockNumber, txHash: tx.txHash };
    }
    const latest = sent.at(-1);
    if (!latest) return { state: 'failed', reason: 'no signed transaction was found for this withdrawal', blockNumber: null };
    if (this.clock.now().getTime() - latest.sentAt.getTime() >= this.opts.stuckAfterMs) {
      await this.replace(net, latest);
    } else {
      await this.broadcast(net, latest); // a node restarted meanwhile may have lost it from its pool
    }
    return { state: 'pending', confirmations: 0, blockNumber: null };
  }

  private async fundsProblem(net: EvmNetwork, token: EvmToken, units: bigint, maxFeePerGas: bigint): Promise<string | null> {
    const address = this.account.address;
    const [tokens, native] = await Promise.all([
      net.client.readContract({ address: token.address, abi: erc20Abi, functionName: 'balanceOf', args: [address] }),
      net.client.getBalance({ address }),
    ]);
    if (tokens < units) {
      return `the hot wallet ${address} holds ${fromUnits(tokens, token.decimals).toFixed()} ${token.currency}, less than the ${fromUnits(units, token.decimals).toFixed()} to send; top it up, then withdraw again`;
    }
    const gas = BigInt(this.opts.gasLimit) * maxFeePerGas;
    if (native < gas) {
      return `the hot wallet ${address} holds ${formatEther(native)} ${NATIVE[net.network]}, less than the ${formatEther(gas)} the transfer may cost in gas; top it up, then withdraw again`;
    }
    return null;
  }

  private async sign(net: EvmNetwork, token: Hex, withdrawalId: string, to: string, units: bigint, nonce: bigint, maxFeePerGas: bigint, maxPriorityFeePerGas: bigint) {
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

  /** The same transfer at the same nonce, outbidding the stuck one (and today's fees). */
  private async replace(net: EvmNetwork, stuck: PayoutTransaction): Promise<void> {
    const fees = await net.client.estimateFeesPerGas();
    const bump = (old: { toString(): string }, now: bigint) => {
      const raised = (BigInt(old.toString()) * BUMP_PERCENT + 99n) / 100n;
      return raised > now ? raised : now;
    };
    const call = decodeTransfer(stuck.raw);
    const row = await this.sign(net, call.token, stuck.withdrawalId, call.to, call.units, stuck.nonce,
      bump(stuck.maxFeePerGas, fees.maxFeePerGas), bump(stuck.maxPriorityFeePerGas, fees.maxPriorityFeePerGas));
    await this.db.payoutTransaction.create({ data: row });
    this.logger.warn({ network: net.network, withdrawalId: stuck.withdrawalId, stuck: stuck.txHash, replacement: row.txHash }, 'payout stuck: replaced with a higher fee at the same nonce');
    await this.broadcast(net, row);
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
