import { createHash } from 'node:crypto';
import type { Clock } from '@pay/kit';
import type { Network } from '../generated/prisma/client';
import { toChecksumAddress } from './addresses';
import type { ChainWatcher, PayoutRequest, PayoutSigner, TransferRef, TransferState } from './chain';

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
 */
export class SandboxChain implements ChainWatcher, PayoutSigner {
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

  async transferState(ref: TransferRef): Promise<TransferState> {
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

  /** Idempotent per payout id, as a custodian's API is: the same id always yields the same hash. */
  async send(req: PayoutRequest): Promise<{ txHash: string; fromAddress: string }> {
    const hash = createHash('sha256').update(`payout:${req.payoutId}`).digest('hex');
    return { txHash: req.network === 'Tron' ? hash : `0x${hash}`, fromAddress: this.hotWallet[req.network] };
  }
}
