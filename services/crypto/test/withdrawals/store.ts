import { randomUUID } from 'node:crypto';
import type { CryptoQueries } from '../../src/db';
import type { WithdrawalStatus } from '../../src/generated/kysely/tables';
import { withdrawalRecordOf, type WithdrawalRecord } from '../../src/modules/withdrawals/store';

/** Tests' reads and writes of `crypto.withdrawals` (the withdrawals module's table): only here. */

/** A withdrawal's status (it must exist). */
export async function withdrawalStatus(on: CryptoQueries, id: string): Promise<WithdrawalStatus> {
  return (await on.$kysely.selectFrom('withdrawals').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;
}

/** How many withdrawals the merchant has (both modes). */
export async function withdrawalCount(on: CryptoQueries, merchantId: string): Promise<number> {
  const { n } = await on.$kysely.selectFrom('withdrawals').select((eb) => eb.fn.countAll<string>().as('n')).where('merchant_id', '=', merchantId).executeTakeFirstOrThrow();
  return Number(n);
}

/** The recipients of the merchant's withdrawals. */
export async function withdrawalRecipients(on: CryptoQueries, merchantId: string): Promise<string[]> {
  const rows = await on.$kysely.selectFrom('withdrawals').select('to_address').where('merchant_id', '=', merchantId).execute();
  return rows.map((r) => r.to_address);
}

/** How many withdrawals are in Processing (every merchant's). */
export async function processingCount(on: CryptoQueries): Promise<number> {
  const { n } = await on.$kysely.selectFrom('withdrawals').select((eb) => eb.fn.countAll<string>().as('n')).where('status', '=', 'Processing').executeTakeFirstOrThrow();
  return Number(n);
}

/** A test-mode USDT_TRC20 withdrawal of 10 (fee 1) in Processing, sent at `processedAt`, written directly. */
export async function insertProcessingWithdrawal(on: CryptoQueries, merchantId: string, processedAt: Date): Promise<void> {
  await on.$kysely
    .insertInto('withdrawals')
    .values({
      id: randomUUID(),
      merchant_id: merchantId,
      is_test: true,
      withdrawal_number: `WD-${randomUUID()}`,
      to_address: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8',
      amount: '10',
      fee: '1',
      net_amount: '9',
      currency: 'USDT_TRC20',
      network: 'Tron',
      status: 'Processing',
      tx_hash: `0x${'ab'.repeat(32)}`,
      processed_at: processedAt,
    })
    .execute();
}

/** Deletes the merchant's withdrawals. */
export async function deleteWithdrawalsOf(on: CryptoQueries, merchantId: string): Promise<void> {
  await on.$kysely.deleteFrom('withdrawals').where('merchant_id', '=', merchantId).execute();
}

/** A withdrawal as the module reads it (it must exist). */
export async function withdrawalRecord(on: CryptoQueries, id: string): Promise<WithdrawalRecord> {
  return withdrawalRecordOf(await on.$kysely.selectFrom('withdrawals').selectAll().where('id', '=', id).executeTakeFirstOrThrow());
}

/** Runs SQL text on a database of its own (a chaos stack's `query`). */
export type SqlQuery = <T extends Record<string, unknown>>(text: string, values?: unknown[]) => Promise<T[]>;

/** How many withdrawals the merchant has, read with a chaos stack's `query`. */
export async function withdrawalCountIn(query: SqlQuery, merchantId: string): Promise<number> {
  const [row] = await query<{ n: number }>('SELECT count(*)::int AS n FROM crypto.withdrawals WHERE merchant_id = $1', [merchantId]);
  return row!.n;
}

/** How many withdrawals are Pending or Processing, read with a chaos stack's `query`. */
export async function openWithdrawalsIn(query: SqlQuery): Promise<number> {
  const [row] = await query<{ n: number }>(`SELECT count(*)::int AS n FROM crypto.withdrawals WHERE status IN ('Pending', 'Processing')`);
  return row!.n;
}

/** The withdrawals still Pending or Processing, oldest first (id and status), read with a chaos stack's `query`. */
export function openWithdrawalListIn(query: SqlQuery): Promise<{ id: string; status: string }[]> {
  return query(`SELECT id::text, status::text FROM crypto.withdrawals WHERE status IN ('Pending', 'Processing') ORDER BY created_at`);
}

/** Every withdrawal with its Idempotency-Key, how many of its merchant's share that key, its status and amount (text), read with a chaos stack's `query`. */
export async function withdrawalsByKeyIn(query: SqlQuery): Promise<{ id: string; merchant_id: string; key: string; n: number; status: string; amount: string }[]> {
  return query(
    `SELECT w.id, w.merchant_id, w.idempotency_key AS key, count(*) OVER (PARTITION BY w.merchant_id, w.idempotency_key)::int AS n,
            w.status::text, w.amount::text
       FROM crypto.withdrawals w`,
  );
}
