import type { Pool } from 'pg';
import type { Sql } from '@pay/kit';
import { qrPngDataUri } from '../payments/qr';
import type { Owner } from '@pay/auth';

/** A `numeric` as either driver hands it over (pg: text, Prisma: Decimal). */
export type Numeric = { toString(): string };
export type InvoiceStatus = 'PENDING' | 'PAID' | 'EXPIRED' | 'CANCELLED';

/** An invoice row as read by raw SQL (snake_case, as stored). */
export interface InvoiceRow {
  id: string;
  merchant_id: string;
  is_test: boolean;
  api: 'v1' | 'v2';
  invoice_number: string;
  amount: Numeric;
  currency: string;
  description: string | null;
  status: InvoiceStatus;
  payment_method: 'sbp' | 'card';
  customer_email: string | null;
  customer_name: string | null;
  customer_phone: string | null;
  customer_id: string | null;
  kyc_required: boolean;
  kyc_verified: boolean;
  receipt_required: boolean;
  provider: string;
  external_order_id: string;
  qr_code: string | null;
  qr_payload: string | null;
  original_payment_url: string | null;
  /** The JSON text the merchant sent, as stored (read with INVOICE_COLUMNS). */
  metadata: string | null;
  redirect_url: string | null;
  success_url: string | null;
  external_id: string | null;
  batch_id: string | null;
  refunded_amount: Numeric;
  paid_method: 'sbp' | 'card' | null;
  payer_bank: string | null;
  sbp_transaction_id: string | null;
  expires_at: Date;
  created_at: Date;
  paid_at: Date | null;
  expired_at: Date | null;
  cancelled_at: Date | null;
  idempotency_key: string | null;
}

/** The customer an invoice belongs to, joined onto reads that show it. */
export interface JoinedCustomer {
  c_id: string | null;
  c_full_name: string | null;
  c_email: string | null;
  c_kyc_status: 'PENDING' | 'VERIFIED' | 'REJECTED' | null;
  c_is_blocked: boolean | null;
}

export type InvoiceWithCustomer = InvoiceRow & JoinedCustomer;

/**
 * The invoice's customer: the one bound at payment, or before that the merchant's customer
 * with the invoice's e-mail (stored lower-case), else its phone. Three index probes at most,
 * in one statement with the read.
 */
export const CUSTOMER_JOIN = `
  LEFT JOIN LATERAL (
    (SELECT c.id, c.full_name, c.email, c.kyc_status, c.is_blocked FROM invoicing.customers c WHERE c.id = i.customer_id)
    UNION ALL
    (SELECT c.id, c.full_name, c.email, c.kyc_status, c.is_blocked FROM invoicing.customers c
      WHERE i.customer_id IS NULL AND c.merchant_id = i.merchant_id AND c.is_test = i.is_test AND c.email = lower(i.customer_email))
    UNION ALL
    (SELECT c.id, c.full_name, c.email, c.kyc_status, c.is_blocked FROM invoicing.customers c
      WHERE i.customer_id IS NULL AND c.merchant_id = i.merchant_id AND c.is_test = i.is_test AND c.phone = i.customer_phone)
    LIMIT 1
  ) c ON true`;
export const CUSTOMER_COLUMNS = 'c.id AS c_id, c.full_name AS c_full_name, c.email AS c_email, c.kyc_status AS c_kyc_status, c.is_blocked AS c_is_blocked';

/**
 * An invoice row as every statement that reads one selects it (alias `i`): `metadata` as the
 * exact text stored. Both drivers would parse the json column, losing digits past a double's
 * and trailing zeros; of two columns with one name, pg and Prisma alike keep the later.
 */
export const INVOICE_COLUMNS = 'i.*, i.metadata::text AS metadata';

/** The columns `insertInvoice` writes, in its parameter order. */
const INSERT_COLUMNS = [
  'id',
  'merchant_id',
  'is_test',
  'api',
  'invoice_number',
  'amount',
  'currency',
  'description',
  'payment_method',
  'customer_email',
  'customer_name',
  'customer_phone',
  'kyc_required',
  'receipt_required',
  'provider',
  'external_order_id',
  'qr_code',
  'qr_payload',
  'original_payment_url',
  'metadata',
  'redirect_url',
  'success_url',
  'external_id',
  'batch_id',
  'expires_at',
  'created_at',
  'idempotency_key',
] as const;

export type NewInvoiceRow = Record<(typeof INSERT_COLUMNS)[number], unknown>;

/** Postgres types of INSERT_COLUMNS: the inserts' parameters are cast to them. */
const COLUMN_TYPES: Record<(typeof INSERT_COLUMNS)[number], string> = {
  id: 'uuid',
  merchant_id: 'uuid',
  is_test: 'boolean',
  api: 'invoicing."ApiVersion"',
  invoice_number: 'text',
  amount: 'numeric',
  currency: 'invoicing."Currency"',
  description: 'text',
  payment_method: 'invoicing."PaymentMethod"',
  customer_email: 'text',
  customer_name: 'text',
  customer_phone: 'text',
  kyc_required: 'boolean',
  receipt_required: 'boolean',
  provider: 'text',
  external_order_id: 'uuid',
  qr_code: 'text',
  qr_payload: 'text',
  original_payment_url: 'text',
  metadata: 'json',
  redirect_url: 'text',
  success_url: 'text',
  external_id: 'text',
  batch_id: 'uuid',
  expires_at: 'timestamptz',
  created_at: 'timestamptz',
  idempotency_key: 'text',
};

/** A new invoice's columns as its create answers them: the row, and whether its customer has passed KYC. */
const CREATED_COLUMNS = `${INVOICE_COLUMNS}, EXISTS (SELECT 1 FROM invoicing.customers c
     WHERE c.merchant_id = i.merchant_id AND c.is_test = i.is_test AND c.kyc_status = 'VERIFIED'
       AND (c.email = lower(i.customer_email) OR c.phone = i.customer_phone)) AS customer_kyc_verified`;

// Written only in a currency enabled for the merchant (RUB when it never chose), checked in
// the same statement. The customer's own KYC makes a new invoice kycVerified at once (decisions.md §10).
const INSERT_SQL = `INSERT INTO invoicing.invoices AS i (${INSERT_COLUMNS.join(', ')})
  SELECT ${INSERT_COLUMNS.map((c, i) => `$${i + 1}::${COLUMN_TYPES[c]}`).join(', ')}
   WHERE $${INSERT_COLUMNS.indexOf('currency') + 1}::invoicing."Currency" = ANY(COALESCE(
     (SELECT enabled_currencies FROM invoicing.merchant_settings WHERE merchant_id = $${INSERT_COLUMNS.indexOf('merchant_id') + 1}::uuid), '{RUB}'))
  ON CONFLICT (invoice_number) DO NOTHING
  RETURNING ${CREATED_COLUMNS}`;

/** A new invoice as written, with whether its customer (if known) has passed KYC. */
export type CreatedInvoiceRow = InvoiceRow & { customer_kyc_verified: boolean };

/**
 * One statement, one round trip. Returns null when the invoice number is taken or the currency
 * is not enabled for the merchant (the caller tells which); any other conflict is an error.
 */
export async function insertInvoice(sql: Pool, row: NewInvoiceRow): Promise<CreatedInvoiceRow | null> {
  const values = INSERT_COLUMNS.map((c) => row[c]);
  const res = await sql.query<CreatedInvoiceRow>({ name: 'invoice-insert', text: INSERT_SQL, values });
  return res.rows[0] ?? null;
}

const BY_KEY_SQL = `SELECT ${CREATED_COLUMNS} FROM invoicing.invoices i
  WHERE i.merchant_id = $1 AND i.is_test = $2 AND i.created_at > $3 AND i.api = $4 AND i.idempotency_key = $5
  ORDER BY i.created_at LIMIT 1`;

/**
 * The invoice an earlier request made with this Idempotency-Key since `since`, as its create
 * answered it; null if none. Rare (a retry resuming a request that died), so it has no index
 * of its own: it reads the owner's invoices since `since` through (merchant, mode, createdAt).
 */
export async function selectCreatedByKey(sql: Pool, owner: Owner, api: 'v1' | 'v2', key: string, since: Date): Promise<CreatedInvoiceRow | null> {
  const res = await sql.query<CreatedInvoiceRow>(BY_KEY_SQL, [owner.merchantId, owner.isTest, since, api, key]);
  return res.rows[0] ?? null;
}

const INSERT_MANY_SQL = `INSERT INTO invoicing.invoices (${INSERT_COLUMNS.join(', ')})
  SELECT * FROM unnest(${INSERT_COLUMNS.map((c, i) => `$${i + 1}::${COLUMN_TYPES[c]}[]`).join(', ')})
  ON CONFLICT DO NOTHING
  RETURNING id`;

/**
 * Many invoices in one statement (a column array per parameter, `unnest`ed): 1,000 rows cost
 * one round trip. A row that clashes with a unique value (its id again, its number, its
 * externalId) is skipped, not an error: the caller compares the ids returned with its own.
 */
export async function insertInvoices(tx: Sql, rows: NewInvoiceRow[]): Promise<Set<string>> {
  if (rows.length === 0) return new Set();
  const values = INSERT_COLUMNS.map((c) => rows.map((r) => r[c]));
  const inserted = await tx.$queryRawUnsafe<{ id: string }[]>(INSERT_MANY_SQL, ...values);
  return new Set(inserted.map((r) => r.id));
}

/** QR images drawn per statement by drawBatchQrCodes: ~0.25 ms of CPU each, so ~50 ms a chunk. */
const QR_CHUNK = 200;

/**
 * Draws and stores the QR image of every SBP invoice of a batch that has none yet, in chunks
 * (batch rows are written without it, so a 1,000-row batch completes in a fraction of a
 * second). Called once the batch is completed, before its job ends; reads draw any image this
 * missed (a process stopped in between), so an invoice never answers without its QR.
 */
export async function drawBatchQrCodes(sql: Pool, batchId: string): Promise<number> {
  let drawn = 0;
  for (;;) {
    const { rows } = await sql.query<{ id: string; qr_payload: string }>(
      'SELECT id, qr_payload FROM invoicing.invoices WHERE batch_id = $1 AND qr_code IS NULL AND qr_payload IS NOT NULL LIMIT $2',
      [batchId, QR_CHUNK],
    );
    if (rows.length === 0) return drawn;
    await sql.query(
      `UPDATE invoicing.invoices i SET qr_code = d.qr_code FROM unnest($1::uuid[], $2::text[]) AS d(id, qr_code)
        WHERE i.id = d.id AND i.qr_code IS NULL`,
      [rows.map((r) => r.id), rows.map((r) => qrPngDataUri(r.qr_payload))],
    );
    drawn += rows.length;
  }
}

/**
 * Draws the QR image a batch invoice still lacks when it is read (drawBatchQrCodes had not
 * reached it, or its process stopped first) and stores it, only where still missing, so
 * concurrent reads agree on one.
 */
async function withQrCodes<T extends InvoiceRow>(sql: Pool, rows: T[]): Promise<T[]> {
  for (const row of rows) {
    if (row.qr_payload === null || row.qr_code !== null) continue;
    row.qr_code = qrPngDataUri(row.qr_payload);
    await sql.query({ name: 'invoice-store-qr', text: 'UPDATE invoicing.invoices SET qr_code = $2 WHERE id = $1 AND qr_code IS NULL', values: [row.id, row.qr_code] });
  }
  return rows;
}

const GET_SQL = `SELECT ${INVOICE_COLUMNS}, ${CUSTOMER_COLUMNS} FROM invoicing.invoices i ${CUSTOMER_JOIN}
  WHERE i.id = $1 AND i.merchant_id = $2 AND i.is_test = $3`;

/** One of the owner's invoices with its customer, in one statement; null when it is not theirs. */
export async function selectInvoice(sql: Pool, owner: Owner, id: string): Promise<InvoiceWithCustomer | null> {
  const res = await sql.query<InvoiceWithCustomer>({ name: 'invoice-get', text: GET_SQL, values: [id, owner.merchantId, owner.isTest] });
  return (await withQrCodes(sql, res.rows))[0] ?? null;
}

const PUBLIC_GET_SQL = `SELECT ${INVOICE_COLUMNS}, ${CUSTOMER_COLUMNS} FROM invoicing.invoices i ${CUSTOMER_JOIN} WHERE i.id = $1`;

/** Any invoice by id, for its hosted page (the id in the link is the capability). */
export async function selectInvoiceById(sql: Pool, id: string): Promise<InvoiceWithCustomer | null> {
  const res = await sql.query<InvoiceWithCustomer>({ name: 'invoice-get-public', text: PUBLIC_GET_SQL, values: [id] });
  return (await withQrCodes(sql, res.rows))[0] ?? null;
}

/** Newest first; the page is picked by the index, the customer joined onto its rows only. */
export async function selectInvoices(
  sql: Pool,
  owner: Owner,
  q: { limit: number; offset: number; status?: InvoiceStatus },
): Promise<{ rows: InvoiceWithCustomer[]; total: number }> {
  const values = [owner.merchantId, owner.isTest, q.status ?? null];
  const where = 'merchant_id = $1 AND is_test = $2 AND ($3::invoicing."InvoiceStatus" IS NULL OR status = $3)';
  const [page, count] = await Promise.all([
    sql.query<InvoiceWithCustomer>(
      `SELECT ${INVOICE_COLUMNS}, ${CUSTOMER_COLUMNS}
         FROM (SELECT * FROM invoicing.invoices WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT $4 OFFSET $5) i
         ${CUSTOMER_JOIN}
        ORDER BY i.created_at DESC, i.id DESC`,
      [...values, q.limit, q.offset],
    ),
    sql.query<{ total: number }>(`SELECT count(*)::int AS total FROM invoicing.invoices WHERE ${where}`, values),
  ]);
  return { rows: await withQrCodes(sql, page.rows), total: count.rows[0]!.total };
}
