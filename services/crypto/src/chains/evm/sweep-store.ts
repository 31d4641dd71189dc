import type { Selectable } from 'kysely';
import type { CryptoQueries, Tables } from '../../db';
import type { Currency, Network, SweepStatus } from '../../generated/kysely/tables';
import { money, type Money } from '../../shared/money';

/**
 * The one owner of `sweep_transfers`: every statement on it is here (sweeps.ts decides). Each
 * function runs on what it is given: the client (`deps.db`) or a transaction (`tx`).
 */

/** A signed sweep transfer as the sweep reads it back. */
export interface SweepTransferRecord {
  txHash: string;
  network: Network;
  currency: Currency;
  fromAddress: string;
  toAddress: string;
  nonce: bigint;
  /** The token's base units the transfer sends. */
  units: Money;
  raw: string;
  status: SweepStatus;
  blockNumber: bigint | null;
  movedUnits: Money | null;
  reason: string | null;
  signedAt: Date;
  settledAt: Date | null;
}

export function sweepOf(r: Selectable<Tables.SweepTransfer>): SweepTransferRecord {
  return {
    txHash: r.tx_hash,
    network: r.network,
    currency: r.currency,
    fromAddress: r.from_address,
    toAddress: r.to_address,
    nonce: BigInt(r.nonce),
    units: money(r.units),
    raw: r.raw,
    status: r.status,
    blockNumber: r.block_number === null ? null : BigInt(r.block_number),
    movedUnits: r.moved_units === null ? null : money(r.moved_units),
    reason: r.reason,
    signedAt: r.signed_at,
    settledAt: r.settled_at,
  };
}

export interface NewSweep {
  txHash: string;
  network: Network;
  currency: Currency;
  fromAddress: string;
  toAddress: string;
  nonce: number;
  units: bigint;
  raw: string;
  signedAt: Date;
}

/** Writes a signed sweep (before it is broadcast); a unique violation when its nonce is signed already. */
export async function insertSweep(on: CryptoQueries, s: NewSweep): Promise<SweepTransferRecord> {
  const row = await on.$kysely
    .insertInto('sweep_transfers')
    .values({
      tx_hash: s.txHash,
      network: s.network,
      currency: s.currency,
      from_address: s.fromAddress,
      to_address: s.toAddress,
      nonce: String(s.nonce),
      units: s.units.toString(),
      raw: s.raw,
      signed_at: s.signedAt,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return sweepOf(row);
}

/** How a Signed sweep ended. */
export interface SweepEnd {
  status: 'Confirmed' | 'Failed';
  blockNumber?: bigint;
  movedUnits?: Money;
  reason?: string;
}

/**
 * Ends a sweep if it is still Signed (two processes settling one sweep write it once, and a
 * final row never changes), then reads it back as it now is.
 */
export async function endSweep(on: CryptoQueries, txHash: string, end: SweepEnd, at: Date): Promise<SweepTransferRecord> {
  await on.$kysely
    .updateTable('sweep_transfers')
    .set({
      status: end.status,
      ...(end.blockNumber !== undefined ? { block_number: end.blockNumber.toString() } : {}),
      ...(end.movedUnits !== undefined ? { moved_units: end.movedUnits.toFixed() } : {}),
      ...(end.reason !== undefined ? { reason: end.reason } : {}),
      settled_at: at,
    })
    .where('tx_hash', '=', txHash)
    .where('status', '=', 'Signed')
    .execute();
  return sweepOf(await on.$kysely.selectFrom('sweep_transfers').selectAll().where('tx_hash', '=', txHash).executeTakeFirstOrThrow());
}

/** The Signed sweeps of one address and token. */
export async function signedSweepsFrom(on: CryptoQueries, network: Network, currency: Currency, fromAddress: string): Promise<SweepTransferRecord[]> {
  const rows = await on.$kysely
    .selectFrom('sweep_transfers')
    .selectAll()
    .where('network', '=', network)
    .where('currency', '=', currency)
    .where('from_address', '=', fromAddress)
    .where('status', '=', 'Signed')
    .execute();
  return rows.map(sweepOf);
}

/** The units Confirmed sweeps of one address and token moved out in blocks up to `block`, one entry per sweep (decimal text). */
export async function confirmedSweptUnits(on: CryptoQueries, network: Network, currency: Currency, fromAddress: string, block: number): Promise<string[]> {
  const rows = await on.$kysely
    .selectFrom('sweep_transfers')
    .select('moved_units')
    .where('network', '=', network)
    .where('currency', '=', currency)
    .where('from_address', '=', fromAddress)
    .where('status', '=', 'Confirmed')
    .where('block_number', '<=', String(block))
    .execute();
  return rows.map((r) => r.moved_units!);
}

/** Where sweeps of the token on the network sent it, but those that moved nothing (Failed), by address. */
export async function sweepTargets(on: CryptoQueries, network: Network, currency: Currency): Promise<string[]> {
  const rows = await on.$kysely
    .selectFrom('sweep_transfers')
    .select('to_address')
    .distinct()
    .where('network', '=', network)
    .where('currency', '=', currency)
    .where('status', '!=', 'Failed')
    .orderBy('to_address', 'asc')
    .execute();
  return rows.map((r) => r.to_address);
}

/** The Signed sweeps of a network, oldest first. */
export async function signedSweepsOn(on: CryptoQueries, network: Network): Promise<SweepTransferRecord[]> {
  const rows = await on.$kysely.selectFrom('sweep_transfers').selectAll().where('network', '=', network).where('status', '=', 'Signed').orderBy('signed_at', 'asc').execute();
  return rows.map(sweepOf);
}
