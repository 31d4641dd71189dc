import { sql } from 'kysely';
import { prepared } from '@pay/db';
import { pageWindow } from '@pay/http';
import type { Owner } from '@pay/auth';
import type { Currency, Network, Prisma, Withdrawal, WithdrawalStatus } from '../../generated/prisma/client';
import { tablesIn, type CryptoDb, type CryptoTables, type CryptoTx } from '../../db';
import type { CreatedWithdrawalRecord } from './views';

/**
 * The one owner of `crypto.withdrawals` and `crypto.withdrawal_volume`: every statement on
 * them is here. Creating one is a single call of `create_withdrawal` (its migrations:
 * withdrawal_in_one_statement, withdrawal_returns_row, withdrawal_volume_by_minute,
 * withdrawal_refusals), which also writes the hold and the outbox job.
 */

type Tx = CryptoTx;

/** The row `create_withdrawal` returns (its RETURNS TABLE, migration withdrawal_refusals). */
interface CreateWithdrawalRow {
  outcome: 'created' | 'existing' | 'own_address' | 'count_exceeded' | 'limit_exceeded' | 'insufficient_balance';
  withdrawal_id: string;
  withdrawn: string;
  available: string;
  counted: number;
  withdrawal_number: string;
  to_address: string;
  amount: string;
  fee: string;
  net_amount: string;
  currency: Currency;
  network: Network;
  status: WithdrawalStatus;
  created_at: Date;
}

export interface NewWithdrawal {
  id: string;
  merchantId: string;
  isTest: boolean;
  withdrawalNumber: string;
  toAddress: string;
  amount: string;
  fee: string;
  netAmount: string;
  currency: Currency;
  network: Network;
  createdAt: Date;
  dailyLimit: string;
  /** Withdrawals the merchant may create per hour in this mode. */
  hourlyCount: number;
  /** The recipient as the platform spells its own addresses (canonicalAddress): one of them is refused. */
  ownAddress: string;
  idempotencyKey: string | null;
  jobQueue: string;
  /** The outbox job's payload, as JSON text. */
  jobPayload: string;
}

export type CreateOutcome =
  | ({ outcome: 'created' | 'existing' } & CreatedWithdrawalRecord)
  | { outcome: 'own_address' }
  | { outcome: 'count_exceeded'; counted: number }
  | { outcome: 'limit_exceeded'; withdrawn: string }
  | { outcome: 'insufficient_balance'; available: string };

// The hot path: one prepared statement on the pool, checks (own address, hourly count, daily
// limit, funds), hold, withdrawal, outbox job, and the row back.
const CREATE = prepared((db: CryptoTables, p: NewWithdrawal) =>
  db
    .selectFrom(
      sql<CreateWithdrawalRow>`create_withdrawal(${p.id}, ${p.merchantId}, ${p.isTest}, ${p.withdrawalNumber}, ${p.toAddress}, ${p.amount}, ${p.fee},
        ${p.netAmount}, ${p.currency}::"Currency", ${p.network}::"Network", ${p.createdAt}, ${p.dailyLimit}, ${p.idempotencyKey},
        ${p.jobQueue}, ${p.jobPayload}::jsonb, ${p.ownAddress}, ${p.hourlyCount}::int)`.as('w'),
    )
    .select([
      'w.outcome',
      'w.withdrawal_id as id',
      'w.withdrawn',
      'w.available',
      'w.counted',
      'w.withdrawal_number as withdrawalNumber',
      'w.to_address as toAddress',
      'w.amount',
      'w.fee',
      'w.net_amount as netAmount',
      'w.currency',
      'w.network',
      'w.status',
      'w.created_at as createdAt',
    ]),
);

/** Runs `create_withdrawal`: the function always answers one row, whatever its outcome. */
export async function insertWithdrawal(db: CryptoTables, w: NewWithdrawal): Promise<CreateOutcome> {
  const [row] = await CREATE(db, w);
  return row as CreateOutcome;
}

// Reads by key and paged lists use the Prisma model API: its rows are what the views take.

export async function withdrawalOf(db: CryptoDb, owner: Owner, id: string): Promise<Withdrawal | null> {
  return db.withdrawal.findFirst({ where: { id, ...owner } });
}

export async function withdrawalById(db: CryptoDb, id: string): Promise<Withdrawal | null> {
  return db.withdrawal.findUnique({ where: { id } });
}

export async function withdrawalsOf(db: CryptoDb, owner: Owner, q: { page: number; pageSize: number; status?: WithdrawalStatus }) {
  const where: Prisma.WithdrawalWhereInput = { ...owner, ...(q.status ? { status: q.status } : {}) };
  const [items, totalCount] = await Promise.all([
    db.withdrawal.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], ...pageWindow(q) }),
    db.withdrawal.count({ where }),
  ]);
  return { items, totalCount };
}

/** Withdrawals not yet finished, oldest first (the reconciler puts a job back for each). */
/**
 * What live withdrawals not yet sent will pay out (their net amounts) in `currency`: the
 * tokens are still in the hot wallet and owed to their recipients (solvency).
 */
export async function unsentLiveWithdrawals(db: CryptoTables, currency: Currency): Promise<string> {
  const { sum } = await db
    .selectFrom('withdrawals')
    .select((eb) => eb.fn.sum<string | null>('net_amount').as('sum'))
    .where('status', '=', 'Pending')
    .where('is_test', '=', false)
    .where('currency', '=', currency)
    .executeTakeFirstOrThrow();
  return sum ?? '0';
}

export async function openWithdrawalIds(db: CryptoTables, limit: number): Promise<string[]> {
  const rows = await db.selectFrom('withdrawals').select('id').where('status', 'in', ['Pending', 'Processing']).orderBy('created_at').limit(limit).execute();
  return rows.map((r) => r.id);
}

/** Pending → Processing once its transfer is sent; false if another worker moved it first. */
export async function markSent(db: CryptoTables, id: string, txHash: string, at: Date): Promise<boolean> {
  const res = await db
    .updateTable('withdrawals')
    .set({ status: 'Processing', tx_hash: txHash, processed_at: at })
    .where('id', '=', id)
    .where('status', '=', 'Pending')
    .executeTakeFirst();
  return res.numUpdatedRows > 0n;
}

/**
 * Locks the withdrawal's row for the caller's transaction, and reads it under the lock: every
 * decision of a withdrawal step (send, refuse, replace, complete, fail) is taken holding it, so
 * two workers never decide on one withdrawal at once. 'busy' when another worker holds it (it is
 * moving the withdrawal now; look again later), null when there is no such withdrawal.
 */
export async function lockWithdrawal(tx: Tx, id: string): Promise<Withdrawal | 'busy' | null> {
  const locked = await tablesIn(tx).selectFrom('withdrawals').select('id').where('id', '=', id).forUpdate().skipLocked().executeTakeFirst();
  if (!locked) return (await tx.withdrawal.count({ where: { id } })) > 0 ? 'busy' : null;
  return tx.withdrawal.findUniqueOrThrow({ where: { id } });
}

/** A Processing withdrawal's confirmations so far, the hash of the transaction that carries it, and why it is held (null: it is not). */
export async function recordProgress(db: CryptoTables, id: string, confirmations: number, txHash: string | null, heldReason: string | null): Promise<void> {
  await db
    .updateTable('withdrawals')
    .set({ confirmations, tx_hash: txHash, held_reason: heldReason })
    .where('id', '=', id)
    .where('status', '=', 'Processing')
    .execute();
}

export type Ending =
  | { status: 'Completed'; txHash: string | null; confirmations: number; at: Date }
  | { status: 'Failed'; txHash: string | null; reason: string };

/**
 * The withdrawal's end, conditional on the status it was read in (`from`), in the caller's
 * transaction; null when another worker ended it first. A failed withdrawal also leaves the
 * 24-hour limit: its amount comes off its minute's volume.
 */
export async function endWithdrawal(tx: Tx, w: Withdrawal, from: 'Pending' | 'Processing', end: Ending): Promise<Withdrawal | null> {
  const tables = tablesIn(tx);
  const moved = await tables
    .updateTable('withdrawals')
    .set(
      end.status === 'Completed'
        ? { status: 'Completed', tx_hash: end.txHash, confirmations: end.confirmations, completed_at: end.at, held_reason: null }
        : { status: 'Failed', tx_hash: end.txHash, failure_reason: end.reason, held_reason: null },
    )
    .where('id', '=', w.id)
    .where('status', '=', from)
    .executeTakeFirst();
  if (moved.numUpdatedRows === 0n) return null;
  if (end.status === 'Failed') {
    await tables
      .updateTable('withdrawal_volume')
      .set((eb) => ({ amount: eb('amount', '-', w.amount.toString()) }))
      .where('merchant_id', '=', w.merchantId)
      .where('is_test', '=', w.isTest)
      .where('currency', '=', w.currency)
      .where('minute', '=', sql<Date>`date_trunc('minute', ${w.createdAt}::timestamptz)`)
      .execute();
  }
  return tx.withdrawal.findUniqueOrThrow({ where: { id: w.id } });
}
