import type { SqlQuery } from '../invoices/store';
import type { InvoicingQueries } from '../../src/db';
import type { BatchEmailRecord, BatchWithRows } from '../../src/modules/batch/store';

/**
 * The batch module's test helper (its store's, for tests and the bench): what tests set on
 * `invoicing.batches` and `invoicing.invoice_emails` beside the API, without naming the tables
 * outside their owner. Tests read batches and e-mails through the store's own reads
 * (`batchForWork`, `emailsOfBatch`, `batchEmailCounts`), as the records it declares, so a
 * renamed column breaks the stores, not the tests.
 */

/** Sets these fields of one batch (a state a crash or a request would leave). */
export async function updateBatch(on: InvoicingQueries, id: string, set: Partial<Pick<BatchWithRows, 'status' | 'sendEmails' | 'pendingRows'>>): Promise<void> {
  await on.$kysely
    .updateTable('batches')
    .set({
      status: set.status,
      send_emails: set.sendEmails,
      // jsonb as its text: pg would send a JS array as a Postgres array.
      pending_rows: set.pendingRows === undefined || set.pendingRows === null ? set.pendingRows : JSON.stringify(set.pendingRows),
    })
    .where('id', '=', id)
    .execute();
}

/** Sets these fields of a batch's e-mails (all, or the one to `address`). */
export async function updateBatchEmails(on: InvoicingQueries, batchId: string, set: Partial<Pick<BatchEmailRecord, 'status' | 'attempts' | 'lastError'>>, address?: string): Promise<void> {
  let q = on.$kysely.updateTable('invoice_emails').set({ status: set.status, attempts: set.attempts, last_error: set.lastError }).where('batch_id', '=', batchId);
  if (address !== undefined) q = q.where('to_address', '=', address);
  await q.execute();
}

/** How many batches are not completed, and how many e-mails not sent; SQL text on a database of its own (an e2e stack's). */
export async function unfinishedBatchWorkIn(query: SqlQuery): Promise<{ batches: number; emails: number }> {
  const [row] = await query<{ batches: number; emails: number }>(
    `SELECT (SELECT count(*) FROM invoicing.batches WHERE status <> 'completed')::int AS batches,
            (SELECT count(*) FROM invoicing.invoice_emails WHERE status <> 'sent')::int AS emails`,
  );
  return row!;
}

/** Every batch's id and how many invoices it created (`[{ id, created }]`, by id); SQL text. */
export function batchesCreatedIn(query: SqlQuery): Promise<{ id: string; created: number }[]> {
  return query(`SELECT id::text, created FROM invoicing.batches ORDER BY id`);
}

/** E-mails by status and attempts (`[{ status, attempts, n }]`); SQL text. */
export function emailOutcomesIn(query: SqlQuery): Promise<{ status: string; attempts: number; n: number }[]> {
  return query(`SELECT status::text, attempts, count(*)::int AS n FROM invoicing.invoice_emails GROUP BY 1, 2`);
}
