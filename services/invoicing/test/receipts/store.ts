import type { InvoicingQueries, Tables } from '../../src/db';

/**
 * The receipts module's test helper (its store's, for tests and the bench): how many of these
 * receipts are in a status, or past PENDING, without naming the table outside its owner.
 */
export async function countReceipts(on: InvoicingQueries, ids: string[], status: Tables.ReceiptStatus | 'decided'): Promise<number> {
  if (ids.length === 0) return 0;
  const row = await on.$kysely
    .selectFrom('receipts')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('id', 'in', ids)
    .$call((q) => (status === 'decided' ? q.where('status', '<>', 'PENDING') : q.where('status', '=', status)))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
