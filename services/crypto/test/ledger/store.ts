import type { CryptoQueries } from '../../src/db';
import type { Currency, LedgerBucket, LedgerEntryKind } from '../../src/generated/kysely/tables';

/** Tests' reads and writes of `crypto.ledger_entries` (the ledger module's table): only here. */

/** One account's entries in chain order: position, amount and balance after (numeric text). */
export async function ledgerChain(on: CryptoQueries, merchantId: string, currency: Currency, bucket: LedgerBucket): Promise<{ seq: string; amount: string; balanceAfter: string }[]> {
  return on.$kysely
    .selectFrom('ledger_entries')
    .select(['seq', 'amount', 'balance_after as balanceAfter'])
    .where('merchant_id', '=', merchantId)
    .where('currency', '=', currency)
    .where('bucket', '=', bucket)
    .orderBy('seq', 'asc')
    .execute();
}

/** The kinds of the entries matching every filter given, in the order written. */
export async function ledgerKinds(on: CryptoQueries, where: { merchantId?: string; kind?: LedgerEntryKind; withdrawalId?: string }): Promise<LedgerEntryKind[]> {
  const rows = await on.$kysely
    .selectFrom('ledger_entries')
    .select('kind')
    .$if(where.merchantId !== undefined, (q) => q.where('merchant_id', '=', where.merchantId!))
    .$if(where.kind !== undefined, (q) => q.where('kind', '=', where.kind!))
    .$if(where.withdrawalId !== undefined, (q) => q.where('withdrawal_id', '=', where.withdrawalId!))
    .orderBy('id')
    .execute();
  return rows.map((r) => r.kind);
}

/**
 * An account's balance as the sum of its entries, and the lowest running balance in the order
 * the entries were written (numeric text; null sums where there is no entry).
 */
export async function runningBalance(on: CryptoQueries, merchantId: string, currency: Currency, bucket: LedgerBucket): Promise<{ total: string | null; lowest: string | null }> {
  const entries = on.$kysely
    .selectFrom('ledger_entries')
    .select((eb) => ['amount', eb.fn.sum<string>('amount').over((ob) => ob.orderBy('id')).as('running')])
    .where('merchant_id', '=', merchantId)
    .where('currency', '=', currency)
    .where('bucket', '=', bucket);
  return on.$kysely
    .selectFrom(entries.as('e'))
    .select((eb) => [eb.fn.sum<string | null>('e.amount').as('total'), eb.fn.min<string | null>('e.running').as('lowest')])
    .executeTakeFirstOrThrow();
}

/** Writes an entry directly, around the ledger's functions (to test the table's own constraints). */
export async function insertRawEntry(
  on: CryptoQueries,
  e: { merchantId: string; currency: Currency; bucket: LedgerBucket; kind: LedgerEntryKind; amount: string; seq: string; balanceAfter: string; withdrawalId: string },
): Promise<void> {
  await on.$kysely
    .insertInto('ledger_entries')
    .values({ merchant_id: e.merchantId, is_test: true, currency: e.currency, bucket: e.bucket, kind: e.kind, amount: e.amount, seq: e.seq, balance_after: e.balanceAfter, withdrawal_id: e.withdrawalId })
    .execute();
}

/** Runs SQL text on a database of its own (a chaos stack's `query`). */
export type SqlQuery = <T extends Record<string, unknown>>(text: string, values?: unknown[]) => Promise<T[]>;

/** The merchant's withdrawal holds (how many) and available balance (the sum of its entries, numeric text), read with a chaos stack's `query`. */
export async function holdsAndAvailableIn(query: SqlQuery, merchantId: string): Promise<{ holds: number; available: string | null }> {
  const [row] = await query<{ holds: number; available: string | null }>(
    `SELECT (SELECT count(*)::int FROM crypto.ledger_entries WHERE merchant_id = $1 AND kind = 'withdrawal_hold') AS holds,
            (SELECT sum(amount)::text FROM crypto.ledger_entries WHERE merchant_id = $1 AND bucket = 'available') AS available`,
    [merchantId],
  );
  return row!;
}

/** Each withdrawal's holds and releases (how many entries of each), by withdrawal id, read with a chaos stack's `query`. */
export async function holdsAndReleasesIn(query: SqlQuery): Promise<Map<string, { holds: number; releases: number }>> {
  const rows = await query<{ withdrawal_id: string; holds: number; releases: number }>(
    `SELECT withdrawal_id::text, count(*) FILTER (WHERE kind = 'withdrawal_hold')::int AS holds, count(*) FILTER (WHERE kind = 'withdrawal_release')::int AS releases
       FROM crypto.ledger_entries WHERE withdrawal_id IS NOT NULL GROUP BY withdrawal_id`,
  );
  return new Map(rows.map((r) => [r.withdrawal_id, { holds: r.holds, releases: r.releases }]));
}
