import type { SqlQuery } from '../withdrawals/store';

/** How many transactions are in this status, read with SQL text on a database of its own (an e2e stack's). */
export async function transactionCountIn(query: SqlQuery, status: 'Pending' | 'Confirmed' | 'Failed'): Promise<number> {
  const [row] = await query<{ n: number }>('SELECT count(*)::int AS n FROM crypto.transactions WHERE status::text = $1', [status]);
  return row!.n;
}
