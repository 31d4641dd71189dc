import type { SqlQuery } from './store';

/** Ledger postings by kind (`[{ kind, n, subjects }]`, by kind; subjects: distinct transactions or withdrawals), read with SQL text on a database of its own (an e2e stack's). */
export function postingsByKindIn(query: SqlQuery): Promise<{ kind: string; n: number; subjects: number }[]> {
  return query(`SELECT kind::text, count(*)::int AS n, count(DISTINCT coalesce(transaction_id, withdrawal_id))::int AS subjects FROM crypto.ledger_entries GROUP BY 1 ORDER BY 1`);
}
