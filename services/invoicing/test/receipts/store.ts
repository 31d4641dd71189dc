import type { Selectable } from 'kysely';
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

export type ReceiptColumns = Selectable<Tables.Receipt>;

/** These columns of one receipt, or undefined. */
export function receiptColumns<C extends keyof ReceiptColumns & string>(on: InvoicingQueries, id: string, columns: readonly C[]): Promise<Pick<ReceiptColumns, C> | undefined> {
  return on.$kysely.selectFrom('receipts').select(columns).where('id', '=', id).executeTakeFirst() as unknown as Promise<Pick<ReceiptColumns, C> | undefined>;
}

/** The id of the receipt uploaded last for an invoice (throws when there is none). */
export async function latestReceiptId(on: InvoicingQueries, invoiceId: string): Promise<string> {
  const row = await on.$kysely.selectFrom('receipts').select('id').where('invoice_id', '=', invoiceId).orderBy('created_at', 'desc').limit(1).executeTakeFirstOrThrow();
  return row.id;
}

/** How many receipts these invoices have. */
export async function countReceiptsOf(on: InvoicingQueries, invoiceIds: string[]): Promise<number> {
  if (invoiceIds.length === 0) return 0;
  const row = await on.$kysely.selectFrom('receipts').select((e) => e.fn.countAll<string>().as('n')).where('invoice_id', 'in', invoiceIds).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The distinct sources an invoice's receipts came from. */
export async function receiptSourcesOf(on: InvoicingQueries, invoiceId: string): Promise<Tables.Receipt['source'][]> {
  const rows = await on.$kysely.selectFrom('receipts').select('source').distinct().where('invoice_id', '=', invoiceId).execute();
  return rows.map((r) => r.source);
}

/** Moves a receipt's upload time (e.g. into the past: stale without waiting). */
export async function backdateReceipt(on: InvoicingQueries, id: string, at: Date): Promise<void> {
  await on.$kysely.updateTable('receipts').set({ created_at: at }).where('id', '=', id).execute();
}
