import type { SqlQuery } from '../withdrawals/store';

/** Invoices by status (`[{ status, n }]`, by status), read with SQL text on a database of its own (an e2e stack's). */
export function invoiceStatusCountsIn(query: SqlQuery): Promise<{ status: string; n: number }[]> {
  return query(`SELECT status::text, count(*)::int AS n FROM crypto.invoices GROUP BY 1 ORDER BY 1`);
}
