import type { Selectable, SelectQueryBuilder } from 'kysely';
import type { InvoicingTables, Tables } from '../../db';
import type { Owner } from '@pay/auth';

export type ReceiptStatus = Tables.ReceiptStatus;

/** A receipt as read here: the generated row, `extracted_date` (`YYYY-MM-DD`) as text, since a date has no time zone to get wrong. */
export type ReceiptRow = Omit<Selectable<Tables.Receipt>, 'extracted_date'> & { extracted_date: string | null };

/** Every column of a receipt, `extracted_date` as its text. */
const selectReceiptRow = (db: InvoicingTables) =>
  db
    .selectFrom('receipts')
    .selectAll()
    .select((eb) => eb.cast<string | null>('extracted_date', 'text').as('extracted_date'));

export async function selectReceipt(db: InvoicingTables, owner: Owner, id: string): Promise<ReceiptRow | null> {
  const row = await selectReceiptRow(db).where('id', '=', id).where('merchant_id', '=', owner.merchantId).where('is_test', '=', owner.isTest).executeTakeFirst();
  return row ?? null;
}

/** The newest receipt of an invoice, for the hosted page: its state and, when rejected, why. */
export async function selectLatestReceipt(db: InvoicingTables, invoiceId: string): Promise<Pick<ReceiptRow, 'status' | 'rejection_reason'> | null> {
  const row = await db
    .selectFrom('receipts')
    .select(['status', 'rejection_reason'])
    .where('invoice_id', '=', invoiceId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ?? null;
}

export interface ReceiptFilter {
  limit: number;
  offset: number;
  status?: ReceiptStatus;
  invoiceId?: string;
}

/** Newest first; the page and the filter's total side by side. */
export async function selectReceipts(db: InvoicingTables, owner: Owner, q: ReceiptFilter): Promise<{ rows: ReceiptRow[]; total: number }> {
  const matching = <Q extends SelectQueryBuilder<Tables.DB, 'receipts', object>>(s: Q): Q =>
    s
      .where('merchant_id', '=', owner.merchantId)
      .where('is_test', '=', owner.isTest)
      .$if(q.status !== undefined, (w) => w.where('status', '=', q.status!))
      .$if(q.invoiceId !== undefined, (w) => w.where('invoice_id', '=', q.invoiceId!)) as Q;
  const [rows, count] = await Promise.all([
    matching(selectReceiptRow(db)).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(q.limit).offset(q.offset).execute(),
    matching(db.selectFrom('receipts').select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('total'))).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: count.total };
}
