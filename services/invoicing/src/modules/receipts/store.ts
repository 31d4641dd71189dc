import type { ReceiptRejection } from './rejections';
import type { Insertable, SelectQueryBuilder, Updateable } from 'kysely';
import { type InvoicingQueries, type Tables } from '../../db';

/*
 * The statements on the receipts module's table (`receipts`): the only file that names it.
 */
import type { Owner } from '@pay/auth';

export type ReceiptStatus = Tables.ReceiptStatus;

/**
 * A receipt as the rest of the service sees it, declared here rather than derived from the
 * generated table, so a renamed column fails the type check in this store only.
 * `extracted_date` (`YYYY-MM-DD`) is text, since a date has no time zone to get wrong; amounts
 * are numeric text.
 */
export interface ReceiptRow {
  id: string;
  invoice_id: string;
  merchant_id: string;
  is_test: boolean;
  status: ReceiptStatus;
  storage_key: string;
  content_type: string;
  size_bytes: number;
  source: string;
  extracted_amount: string | null;
  extracted_date: string | null;
  confidence: number | null;
  bank: string | null;
  payment_type: string | null;
  rejection_reason: string | null;
  rejection_code: string | null;
  verified_amount: string | null;
  verified_at: Date | null;
  created_at: Date;
  content_sha256: string | null;
}

/** Every column of a receipt, `extracted_date` as its text. */
const selectReceiptRow = (db: InvoicingQueries['$kysely']) =>
  db
    .selectFrom('receipts')
    .selectAll()
    .select((eb) => eb.cast<string | null>('extracted_date', 'text').as('extracted_date'));

export async function selectReceipt(on: InvoicingQueries, owner: Owner, id: string): Promise<ReceiptRow | null> {
  const db = on.$kysely;
  const row = await selectReceiptRow(db).where('id', '=', id).where('merchant_id', '=', owner.merchantId).where('is_test', '=', owner.isTest).executeTakeFirst();
  return row ?? null;
}

/** What the hosted page shows of a receipt: its state and, when rejected, why (the code) with what the check read. */
export type PageReceiptRow = Pick<ReceiptRow, 'status' | 'rejection_reason' | 'rejection_code' | 'extracted_amount' | 'extracted_date'>;

/** The newest receipt of an invoice, for the hosted page. */
export async function selectLatestReceipt(on: InvoicingQueries, invoiceId: string): Promise<PageReceiptRow | null> {
  const db = on.$kysely;
  const row = await db
    .selectFrom('receipts')
    .select(['status', 'rejection_reason', 'rejection_code', 'extracted_amount'])
    .select((eb) => eb.cast<string | null>('extracted_date', 'text').as('extracted_date'))
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
export async function selectReceipts(on: InvoicingQueries, owner: Owner, q: ReceiptFilter): Promise<{ rows: ReceiptRow[]; total: number }> {
  const db = on.$kysely;
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

/** What the check reads of a receipt before reading its file; undefined when there is none. */
export function receiptToCheck(on: InvoicingQueries, id: string) {
  const db = on.$kysely;
  return db.selectFrom('receipts').select(['id', 'storage_key', 'content_type', 'status']).where('id', '=', id).executeTakeFirst();
}

/** The receipt's invoice, state and upload time, read in the check's transaction. */
export function receiptInCheck(tx: InvoicingQueries, id: string) {
  return tx.$kysely.selectFrom('receipts').select(['invoice_id', 'status', 'created_at']).where('id', '=', id).executeTakeFirst();
}

/** Records the check's outcome on the receipt. */
export async function recordReceiptCheck(tx: InvoicingQueries, id: string, outcome: Pick<Updateable<Tables.Receipt>, 'status' | 'extracted_amount' | 'extracted_date' | 'confidence' | 'bank' | 'payment_type' | 'rejection_reason' | 'rejection_code' | 'verified_amount' | 'verified_at'>): Promise<void> {
  await tx.$kysely.updateTable('receipts').set(outcome).where('id', '=', id).execute();
}

/** An APPROVED receipt of the invoice: the receipt half of what pays an invoice an acquirer collects (modules/invoices/proof.ts). */
export async function hasApprovedReceipt(tx: InvoicingQueries, invoiceId: string): Promise<boolean> {
  const row = await tx.$kysely.selectFrom('receipts').select('id').where('invoice_id', '=', invoiceId).where('status', '=', 'APPROVED').limit(1).executeTakeFirst();
  return row !== undefined;
}

/** The same bytes were uploaded before (by creation order) for another invoice. */
export async function uploadedEarlierForAnotherInvoice(tx: InvoicingQueries, receiptId: string): Promise<boolean> {
  const db = tx.$kysely;
  const me = await db.selectFrom('receipts').select(['invoice_id', 'content_sha256', 'created_at', 'id']).where('id', '=', receiptId).executeTakeFirstOrThrow();
  if (me.content_sha256 === null) return false;
  const earlier = await db
    .selectFrom('receipts')
    .select('id')
    .where('content_sha256', '=', me.content_sha256)
    .where('invoice_id', '<>', me.invoice_id)
    .where((eb) => eb.or([eb('created_at', '<', me.created_at), eb.and([eb('created_at', '=', me.created_at), eb('id', '<', me.id)])]))
    .limit(1)
    .executeTakeFirst();
  return earlier !== undefined;
}

/** How many receipts the invoice has. */
export async function receiptCountOf(tx: InvoicingQueries, invoiceId: string): Promise<number> {
  const count = await tx.$kysely
    .selectFrom('receipts')
    .select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('n'))
    .where('invoice_id', '=', invoiceId)
    .executeTakeFirstOrThrow();
  return count.n;
}

/** A new PENDING receipt. */
export async function insertReceipt(tx: InvoicingQueries, r: Omit<Insertable<Tables.Receipt>, 'status'>): Promise<void> {
  await tx.$kysely
    .insertInto('receipts')
    .values({ ...r, status: 'PENDING' })
    .execute();
}

/** A PENDING receipt the check gave up on: REJECTED as unreadable (once). */
export async function rejectUnreadableReceipt(on: InvoicingQueries, id: string, why: string, at: Date): Promise<void> {
  const db = on.$kysely;
  await db
    .updateTable('receipts')
    .set({ status: 'REJECTED', rejection_reason: `Unreadable: the receipt could not be checked (${why.slice(0, 200)})`, rejection_code: 'UNREADABLE' satisfies ReceiptRejection, verified_at: at })
    .where('id', '=', id)
    .where('status', '=', 'PENDING')
    .execute();
}

/** Receipts PENDING since before `createdBefore`, oldest first (at most 1000). */
export async function pendingReceiptIdsBefore(on: InvoicingQueries, createdBefore: Date): Promise<string[]> {
  const db = on.$kysely;
  const rows = await db.selectFrom('receipts').select('id').where('status', '=', 'PENDING').where('created_at', '<', createdBefore).orderBy('created_at').limit(1000).execute();
  return rows.map((r) => r.id);
}
