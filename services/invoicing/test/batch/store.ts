import type { Selectable, Updateable } from 'kysely';
import type { SqlQuery } from '../invoices/store';
import type { InvoicingQueries, Tables } from '../../src/db';

/**
 * The batch module's test helper (its store's, for tests and the bench): what tests read and set
 * on `invoicing.batches` and `invoicing.invoice_emails` beside the API, without naming the
 * tables outside their owner.
 */

export type BatchColumns = Selectable<Tables.Batch>;
export type InvoiceEmailColumns = Selectable<Tables.InvoiceEmail>;

/** These columns of one batch, or undefined. */
export function batchColumns<C extends keyof BatchColumns & string>(on: InvoicingQueries, id: string, columns: readonly C[]): Promise<Pick<BatchColumns, C> | undefined> {
  return on.$kysely.selectFrom('batches').select(columns).where('id', '=', id).executeTakeFirst() as unknown as Promise<Pick<BatchColumns, C> | undefined>;
}

/** Sets these columns of one batch (a state a crash or a request would leave). */
export async function updateBatch(on: InvoicingQueries, id: string, set: Updateable<Tables.Batch>): Promise<void> {
  await on.$kysely.updateTable('batches').set(set).where('id', '=', id).execute();
}

/** How many of a batch's e-mails are in this status. */
export async function countBatchEmails(on: InvoicingQueries, batchId: string, status: Tables.EmailStatus): Promise<number> {
  const row = await on.$kysely.selectFrom('invoice_emails').select((e) => e.fn.countAll<string>().as('n')).where('batch_id', '=', batchId).where('status', '=', status).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** These columns of the batch's e-mail to one address, or undefined. */
export function batchEmailTo<C extends keyof InvoiceEmailColumns & string>(on: InvoicingQueries, batchId: string, address: string, columns: readonly C[]): Promise<Pick<InvoiceEmailColumns, C> | undefined> {
  return on.$kysely.selectFrom('invoice_emails').select(columns).where('batch_id', '=', batchId).where('to_address', '=', address).executeTakeFirst() as unknown as Promise<
    Pick<InvoiceEmailColumns, C> | undefined
  >;
}

/** Sets these columns of a batch's e-mails (all, or the one to `address`). */
export async function updateBatchEmails(on: InvoicingQueries, batchId: string, set: Updateable<Tables.InvoiceEmail>, address?: string): Promise<void> {
  let q = on.$kysely.updateTable('invoice_emails').set(set).where('batch_id', '=', batchId);
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
