import { createHash } from 'node:crypto';
import type { Clock } from '@pay/runtime';
import type { Network } from '../../generated/prisma/client';
import { CURRENCY_CODES } from '../../shared/currencies';
import { generateAddress, toChecksumAddress } from '../addresses';
import type { ChainWatcher, DepositAddress, PayoutRef, PayoutRequest, PayoutSent, PayoutSigner, PayoutState, PayoutTx, TransferRef, TransferState } from '../port';

/** The all-zero account of each network. Transfers to or from it fail in the sandbox. */
export const ZERO_ADDRESS: Record<Network, string> = {
  Tron: 'T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb',
  Ethereum: '0x0000000000000000000000000000000000000000',
  BSC: '0x0000000000000000000000000000000000000000',
};

const GENESIS: Record<Network, number> = { Tron: 60_000_000, Ethereum: 19_000_000, BSC: 38_000_000 };

/**
 * A simulated chain, deterministic in time: a block every `blockMs` on every network, so a
 * transfer seen at t has floor((now - t) / blockMs) confirmations. Tests move the clock
 * instead of sleeping. The documented failure convention (README, OpenAPI): a transfer
 * from or to the network's zero address is dropped by the chain one block after it is seen.
 * It has no keys: deposit addresses are random, and incoming transfers are told to it
 * through the sandbox endpoint rather than found.
 */
export class SandboxChain implements ChainWatcher, PayoutSigner {
  readonly currencies = CURRENCY_CODES;

  /** Hot wallet the sandbox pays withdrawals from. */
  readonly hotWallet: Record<Network, string> = {
    Tron: 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7',
    Ethereum: toChecksumAddress('0x' + createHash('sha256').update('sandbox-hot-wallet').digest('hex').slice(0, 40)),
    BSC: toChecksumAddress('0x' + createHash('sha256').update('sandbox-hot-wallet').digest('hex').slice(0, 40)),
  };

  constructor(
    private readonly clock: Clock,
    private readonly blockMs: number,
  ) {}

  blockNumberAt(network: Network, at: Date): number {
    return GENESIS[network] + Math.floor(at.getTime() / this.blockMs) - Math.floor(Date.UTC(2024, 0, 1) / this.blockMs);
  }

  async depositAddress(network: Network): Promise<DepositAddress> {
    return { address: generateAddress(network), index: null };
  }

  /** Nothing on any real network: a payment page shows no wallet link for the sandbox. */
  paymentToken(): null {
    return null;
  }

  /** Nothing to find: the sandbox is told of each incoming transfer (POST /api/v1/sandbox/transactions). */
  async discover(): Promise<void> {}

  async transferState(ref: Pick<TransferRef, 'network' | 'fromAddress' | 'toAddress' | 'seenAt' | 'requiredConfirmations'>): Promise<TransferState> {
    const confirmations = Math.max(0, Math.floor((this.clock.now().getTime() - ref.seenAt.getTime()) / this.blockMs));
    const included = this.blockNumberAt(ref.network, ref.seenAt) + 1;
    const zero = ZERO_ADDRESS[ref.network];
    if (ref.fromAddress === zero || ref.toAddress === zero) {
      return confirmations >= 1
        ? { state: 'failed', reason: 'transaction reverted on chain (sandbox: zero address)', blockNumber: included }
        : { state: 'pending', confirmations: 0, blockNumber: null };
    }
    if (confirmations >= ref.requiredConfirmations) return { state: 'confirmed', confirmations, blockNumber: included };
    return { state: 'pending', confirmations, blockNumber: confirmations > 0 ? included : null };
  }

  /** The sandbox's hot wallet can always pay. */
  async payoutProblem(): Promise<string | null> {
    return null;
  }

  /** Idempotent per payout id, as a custodian's API is: the same id always yields the same hash. */
  async send(req: PayoutRequest, _tx?: PayoutTx): Promise<PayoutSent> {
    const hash = createHash('sha256').update(`payout:${req.payoutId}`).digest('hex');
    return { state: 'sent', txHash: req.network === 'Tron' ? hash : `0x${hash}`, fromAddress: this.hotWallet[req.network] };
  }

  async payoutState(ref: PayoutRef, _tx?: PayoutTx): Promise<PayoutState> {
    return this.transferState({ ...ref, fromAddress: this.hotWallet[ref.network], seenAt: ref.sentAt });
  }
}
