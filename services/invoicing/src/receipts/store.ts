import type { Pool } from 'pg';
import type { Owner } from '@pay/auth';

export type ReceiptStatus = 'PENDING' | 'APPROVED' | 'REJECTED';

export interface ReceiptRow {
  id: string;
  invoice_id: string;
  merchant_id: string;
  is_test: boolean;
  status: ReceiptStatus;
  storage_key: string;
  content_type: string;
  size_bytes: number;
  source: 'api' | 'page';
  extracted_amount: string | null;
  /** `YYYY-MM-DD` (read as text: a date has no time zone to get wrong). */
  extracted_date: string | null;
  confidence: number | null;
  bank: string | null;
  payment_type: string | null;
  rejection_reason: string | null;
  verified_amount: string | null;
  verified_at: Date | null;
  created_at: Date;
}

const COLUMNS = `id, invoice_id, merchant_id, is_test, status::text AS status, storage_key, content_type, size_bytes, source,
  extracted_amount, extracted_date::text AS extracted_date, confidence, bank, payment_type, rejection_reason,
  verified_amount, verified_at, created_at`;

export async function selectReceipt(sql: Pool, owner: Owner, id: string): Promise<ReceiptRow | null> {
  const { rows } = await sql.query<ReceiptRow>(`SELECT ${COLUMNS} FROM invoicing.receipts WHERE id = $1 AND merchant_id = $2 AND is_test = $3`, [
    id,
    owner.merchantId,
    owner.isTest,
  ]);
  return rows[0] ?? null;
}

/** The newest receipt of an invoice, for the hosted page: its state and, when rejected, why. */
export async function selectLatestReceipt(sql: Pool, invoiceId: string): Promise<Pick<ReceiptRow, 'status' | 'rejection_reason'> | null> {
  const { rows } = await sql.query<Pick<ReceiptRow, 'status' | 'rejection_reason'>>(
    'SELECT status::text AS status, rejection_reason FROM invoicing.receipts WHERE invoice_id = $1 ORDER BY created_at DESC, id DESC LIMIT 1',
    [invoiceId],
  );
  return rows[0] ?? null;
}

export interface ReceiptFilter {
  limit: number;
  offset: number;
  status?: ReceiptStatus;
  invoiceId?: string;
}

/** Newest first; the page and the filter's total side by side. */
export async function selectReceipts(sql: Pool, owner: Owner, q: ReceiptFilter): Promise<{ rows: ReceiptRow[]; total: number }> {
  const values = [owner.merchantId, owner.isTest, q.status ?? null, q.invoiceId ?? null];
  const where = 'merchant_id = $1 AND is_test = $2 AND ($3::invoicing."ReceiptStatus" IS NULL OR status = $3) AND ($4::uuid IS NULL OR invoice_id = $4)';
  const [page, count] = await Promise.all([
    sql.query<ReceiptRow>(`SELECT ${COLUMNS} FROM invoicing.receipts WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT $5 OFFSET $6`, [...values, q.limit, q.offset]),
    sql.query<{ total: number }>(`SELECT count(*)::int AS total FROM invoicing.receipts WHERE ${where}`, values),
  ]);
  return { rows: page.rows, total: count.rows[0]!.total };
}
