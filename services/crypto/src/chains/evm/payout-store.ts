import type { Selectable } from 'kysely';
import type { CryptoQueries, Tables } from '../../db';
import type { Network } from '../../generated/kysely/tables';

/**
 * The one owner of `payout_wallets` and `payout_transactions`: every statement on them is
 * here (the signer, payout-signer.ts, decides). Each function runs on what it is given: the
 * client (`deps.db`) or a transaction (`tx`).
 */

/** A signed payout transaction as the signer reads it back. */
export interface PayoutTransactionRecord {
  txHash: string;
  withdrawalId: string;
  network: Network;
  fromAddress: string;
  nonce: bigint;
  /** The signed transaction, hex. */
  raw: string;
  /** Fee caps it was signed with, in wei (decimal text). */
  maxFeePerGas: string;
  maxPriorityFeePerGas: string;
  sentAt: Date;
}

function payoutOf(r: Selectable<Tables.PayoutTransaction>): PayoutTransactionRecord {
  return {
    txHash: r.tx_hash,
    withdrawalId: r.withdrawal_id,
    network: r.network,
    fromAddress: r.from_address,
    nonce: BigInt(r.nonce),
    raw: r.raw,
    maxFeePerGas: r.max_fee_per_gas,
    maxPriorityFeePerGas: r.max_priority_fee_per_gas,
    sentAt: r.sent_at,
  };
}

/** Whether any transaction was signed for this withdrawal. */
export async function anyPayoutSigned(on: CryptoQueries, withdrawalId: string): Promise<boolean> {
  const row = await on.$kysely.selectFrom('payout_transactions').select('tx_hash').where('withdrawal_id', '=', withdrawalId).limit(1).executeTakeFirst();
  return row !== undefined;
}

/** The transactions signed for a withdrawal, oldest first. */
export async function payoutTransactionsOf(on: CryptoQueries, withdrawalId: string): Promise<PayoutTransactionRecord[]> {
  const rows = await on.$kysely.selectFrom('payout_transactions').selectAll().where('withdrawal_id', '=', withdrawalId).orderBy('sent_at', 'asc').execute();
  return rows.map(payoutOf);
}

/** Writes a signed transaction (before it is broadcast). */
export async function insertPayoutTransaction(tx: CryptoQueries, t: PayoutTransactionRecord): Promise<void> {
  await tx.$kysely
    .insertInto('payout_transactions')
    .values({
      tx_hash: t.txHash,
      withdrawal_id: t.withdrawalId,
      network: t.network,
      from_address: t.fromAddress,
      nonce: t.nonce.toString(),
      raw: t.raw,
      max_fee_per_gas: t.maxFeePerGas,
      max_priority_fee_per_gas: t.maxPriorityFeePerGas,
      sent_at: t.sentAt,
    })
    .execute();
}

/** Registers a hot wallet on a network with its next nonce; one already registered is left as it is. */
export async function registerPayoutWallet(on: CryptoQueries, network: Network, address: string, nextNonce: number): Promise<void> {
  await on.$kysely
    .insertInto('payout_wallets')
    .values({ network, address, next_nonce: String(nextNonce) })
    .onConflict((oc) => oc.doNothing())
    .execute();
}

/** Whether a hot wallet is registered on `network`. */
export async function anyPayoutWallet(on: CryptoQueries, network: Network): Promise<boolean> {
  const row = await on.$kysely.selectFrom('payout_wallets').select('address').where('network', '=', network).limit(1).executeTakeFirst();
  return row !== undefined;
}

/** The hot wallets registered on `network`, by address. */
export async function payoutWalletAddresses(on: CryptoQueries, network: Network): Promise<string[]> {
  const rows = await on.$kysely.selectFrom('payout_wallets').select('address').where('network', '=', network).orderBy('address', 'asc').execute();
  return rows.map((r) => r.address);
}

/** The wallet's next nonce, its row locked for the rest of `tx`; null when it is not registered. */
export async function lockPayoutWallet(tx: CryptoQueries, network: Network, address: string): Promise<bigint | null> {
  const row = await tx.$kysely.selectFrom('payout_wallets').select('next_nonce').where('network', '=', network).where('address', '=', address).forUpdate().executeTakeFirst();
  return row ? BigInt(row.next_nonce) : null;
}

/** Sets the wallet's next nonce (under the lock `lockPayoutWallet` took). */
export async function setNextNonce(tx: CryptoQueries, network: Network, address: string, nextNonce: bigint): Promise<void> {
  await tx.$kysely.updateTable('payout_wallets').set({ next_nonce: nextNonce.toString() }).where('network', '=', network).where('address', '=', address).execute();
}
