import { ApiError } from '@pay/schemas';
import type { Network } from '../generated/prisma/client';

/** What the chain says about a transfer, incoming or outgoing. */
export type TransferState =
  | { state: 'pending'; confirmations: number; blockNumber: number | null }
  | { state: 'confirmed'; confirmations: number; blockNumber: number }
  | { state: 'failed'; reason: string; blockNumber: number | null };

export interface TransferRef {
  network: Network;
  txHash: string;
  fromAddress: string;
  toAddress: string;
  /** When the transfer was first seen (incoming) or sent (outgoing). */
  seenAt: Date;
  requiredConfirmations: number;
}

/** Follows incoming transfers to the invoices' deposit addresses. */
export interface ChainWatcher {
  transferState(ref: TransferRef): Promise<TransferState>;
}

export interface PayoutRequest {
  /** The withdrawal id: a signer must send at most one transfer per id, however often asked. */
  payoutId: string;
  network: Network;
  toAddress: string;
  /** Net amount, as a decimal string. */
  amount: string;
}

/** Signs and sends outgoing transfers (withdrawals), then reports on them. */
export interface PayoutSigner {
  send(req: PayoutRequest): Promise<{ txHash: string; fromAddress: string }>;
  transferState(ref: TransferRef): Promise<TransferState>;
}

/** A chain connection: follows deposits and sends payouts. */
export type Chain = ChainWatcher & PayoutSigner;

/**
 * One chain connection per mode. Test mode always has the sandbox; live mode has one only
 * where a real connection is configured (none in this build), and without it live
 * invoices and withdrawals are refused: an address nobody watches would lose the money.
 */
export interface Chains {
  test: Chain;
  live: Chain | null;
}

export function requireChain(chains: Chains, isTest: boolean, what: string): Chain {
  const chain = chainFor(chains, isTest);
  if (!chain) {
    throw new ApiError(
      'CURRENCY_NOT_ENABLED',
      `Live ${what} need a live chain connection, which this deployment does not have; use a test key (sk_test_…) for the sandbox`,
    );
  }
  return chain;
}

export function chainFor(chains: Chains, isTest: boolean): Chain | null {
  return isTest ? chains.test : chains.live;
}
