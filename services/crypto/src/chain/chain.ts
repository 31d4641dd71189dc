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
