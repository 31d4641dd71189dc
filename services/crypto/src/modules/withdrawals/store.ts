import { sql, type Selectable } from 'kysely';
import { preparedStatement, type Kysely } from '@pay/db';
import type { Owner } from '@pay/auth';
import type { Currency, Network, WithdrawalStatus } from '../../generated/kysely/tables';
import type { CryptoQueries, DB, Tables } from '../../db';
import { money, type Money } from '../../shared/money';

/**
 * The one owner of `crypto.withdrawals` and `crypto.withdrawal_volume`: every statement on
 * them is here. Creating one is a single call of `create_withdrawal` (its migrations:
 * withdrawal_in_one_statement, withdrawal_returns_row, withdrawal_volume_by_minute,
 * withdrawal_refusals), which also writes the hold and the outbox job. Each function runs on what
 * it is given: the client (`deps.db`) or a transaction (`tx`).
 */

type Tx = CryptoQueries;

/** A withdrawal as the module hands it out. */
export interface WithdrawalRecord {
  id: string;
  merchantId: string;
  isTest: boolean;
  withdrawalNumber: string;
  toAddress: string;
  amount: Money;
  fee: Money;
  netAmount: Money;
  currency: Currency;
  network: Network;
  status: WithdrawalStatus;
  txHash: string | null;
  confirmations: number;
  failureReason: string | null;
  heldReason: string | null;
  createdAt: Date;
  processedAt: Date | null;
  completedAt: Date | null;
  idempotencyKey: string | null;
}

/** What the create response needs, as `create_withdrawal` returns it (amounts as numeric text). */
export interface CreatedWithdrawalRecord {
  id: string;
  withdrawalNumber: string;
  toAddress: string;
  amount: { toString(): string };
  fee: { toString(): string };
  netAmount: { toString(): string };
  currency: Currency;
  network: Network;
  status: WithdrawalStatus;
  createdAt: Date;
}

export function withdrawalRecordOf(r: Selectable<Tables.Withdrawal>): WithdrawalRecord {
  return {
    id: r.id,
    merchantId: r.merchant_id,
    isTest: r.is_test,
    withdrawalNumber: r.withdrawal_number,
    toAddress: r.to_address,
    amount: money(r.amount),
    fee: money(r.fee),
    netAmount: money(r.net_amount),
    currency: r.currency,
    network: r.network,
    status: r.status,
    txHash: r.tx_hash,
    confirmations: r.confirmations,
    failureReason: r.failure_reason,
    heldReason: r.held_reason,
    createdAt: r.created_at,
    processedAt: r.processed_at,
    completedAt: r.completed_at,
    idempotencyKey: r.idempotency_key,
  };
}

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
const CREATE = preparedStatement((db: Kysely<DB>, p: NewWithdrawal) =>
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
export async function insertWithdrawal(on: CryptoQueries, w: NewWithdrawal): Promise<CreateOutcome> {
  const [row] = await CREATE(on.$kysely, w);
  return row as CreateOutcome;
}

export async function withdrawalOf(on: CryptoQueries, owner: Owner, id: string): Promise<WithdrawalRecord | null> {
  const row = await on.$kysely.selectFrom('withdrawals').selectAll().where('id', '=', id).where('merchant_id', '=', owner.merchantId).where('is_test', '=', owner.isTest).executeTakeFirst();
  return row ? withdrawalRecordOf(row) : null;
}

export async function withdrawalById(on: CryptoQueries, id: string): Promise<WithdrawalRecord | null> {
  const row = await on.$kysely.selectFrom('withdrawals').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? withdrawalRecordOf(row) : null;
}

/** One page of the owner's withdrawals, newest first, and how many there are. */
export async function withdrawalsOf(on: CryptoQueries, owner: Owner, q: { skip: number; take: number; status?: WithdrawalStatus }) {
  const base = on.$kysely
    .selectFrom('withdrawals')
    .where('merchant_id', '=', owner.merchantId)
    .where('is_test', '=', owner.isTest)
    .$if(q.status !== undefined, (qb) => qb.where('status', '=', q.status!));
  const [rows, count] = await Promise.all([
    base.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').offset(q.skip).limit(q.take).execute(),
    base.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { items: rows.map(withdrawalRecordOf), totalCount: Number(count.n) };
}

/**
 * What live withdrawals not yet sent will pay out (their net amounts) in `currency`: the
 * tokens are still in the hot wallet and owed to their recipients (solvency).
 */
export async function unsentLiveWithdrawals(on: CryptoQueries, currency: Currency): Promise<string> {
  const { sum } = await on.$kysely
    .selectFrom('withdrawals')
    .select((eb) => eb.fn.sum<string | null>('net_amount').as('sum'))
    .where('status', '=', 'Pending')
    .where('is_test', '=', false)
    .where('currency', '=', currency)
    .executeTakeFirstOrThrow();
  return sum ?? '0';
}

/** Withdrawals not yet finished, oldest first (the reconciler puts a job back for each). */
export async function openWithdrawalIds(on: CryptoQueries, limit: number): Promise<string[]> {
  const rows = await on.$kysely.selectFrom('withdrawals').select('id').where('status', 'in', ['Pending', 'Processing']).orderBy('created_at').limit(limit).execute();
  return rows.map((r) => r.id);
}

/** Pending → Processing once its transfer is sent; false if another worker moved it first. */
export async function markSent(on: CryptoQueries, id: string, txHash: string, at: Date): Promise<boolean> {
  const res = await on.$kysely
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
export async function lockWithdrawal(tx: Tx, id: string): Promise<WithdrawalRecord | 'busy' | null> {
  const locked = await tx.$kysely.selectFrom('withdrawals').selectAll().where('id', '=', id).forUpdate().skipLocked().executeTakeFirst();
  if (locked) return withdrawalRecordOf(locked);
  const exists = await tx.$kysely.selectFrom('withdrawals').select('id').where('id', '=', id).executeTakeFirst();
  return exists ? 'busy' : null;
}

/** A Processing withdrawal's confirmations so far, the hash of the transaction that carries it, and why it is held (null: it is not). */
export async function recordProgress(on: CryptoQueries, id: string, confirmations: number, txHash: string | null, heldReason: string | null): Promise<void> {
  await on.$kysely
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
export async function endWithdrawal(tx: Tx, w: WithdrawalRecord, from: 'Pending' | 'Processing', end: Ending): Promise<WithdrawalRecord | null> {
  const moved = await tx.$kysely
    .updateTable('withdrawals')
    .set(
      end.status === 'Completed'
        ? { status: 'Completed', tx_hash: end.txHash, confirmations: end.confirmations, completed_at: end.at, held_reason: null }
        : { status: 'Failed', tx_hash: end.txHash, failure_reason: end.reason, held_reason: null },
    )
    .where('id', '=', w.id)
    .where('status', '=', from)
    .returningAll()
    .executeTakeFirst();
  if (!moved) return null;
  if (end.status === 'Failed') {
    await tx.$kysely
      .updateTable('withdrawal_volume')
      .set((eb) => ({ amount: eb('amount', '-', w.amount.toString()) }))
      .where('merchant_id', '=', w.merchantId)
      .where('is_test', '=', w.isTest)
      .where('currency', '=', w.currency)
      .where('minute', '=', sql<Date>`date_trunc('minute', ${w.createdAt}::timestamptz)`)
      .execute();
  }
  return withdrawalRecordOf(moved);
}

/** Withdrawals in Processing: how many, how many of them are held, and when the oldest was sent (metrics). */
export async function processingSummary(on: CryptoQueries): Promise<{ count: number; held: number; oldestProcessedAt: Date | null }> {
  const row = await on.$kysely
    .selectFrom('withdrawals')
    .select((eb) => [
      eb.fn.countAll<string>().as('count'),
      eb.fn.count<string>('held_reason').as('held'),
      eb.fn.min('processed_at').as('oldest'),
    ])
    .where('status', '=', 'Processing')
    .executeTakeFirstOrThrow();
  return { count: Number(row.count), held: Number(row.held), oldestProcessedAt: row.oldest ?? null };
}
