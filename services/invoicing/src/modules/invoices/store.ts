import type { Owner } from '@pay/auth';
import { ApiError } from '@pay/schemas';
import type { ExpressionBuilder, Insertable, Selectable, Updateable } from 'kysely';
import { sql } from 'kysely';
import { type InvoicingQueries, type Tables } from '../../db';
import { preparedStatement } from '@pay/db';
import { qrPngDataUri } from '../../payments/qr';
import { SETTLED_STATUSES } from '../../payments/statuses';
import { InvoiceTransitionRefused, statusesBefore } from './transitions';
// The customer joined onto an invoice read: the customers module's published fragments (one statement, as before).
import { customerKycVerifiedOf, invoiceCustomer } from '../customers/payers';

/**
 * The one owner of `invoicing.invoices`: every statement that reads or writes the table is
 * here, typed by the generated tables (prisma/schema.prisma). Other domains call the named
 * functions below; analytics keeps its read-only aggregates in its own module.
 */

export type InvoiceStatus = Tables.InvoiceStatus;

/**
 * An invoice as the rest of the service sees it, declared here rather than derived from the
 * generated table: a renamed or retyped column fails the type check in this store (where its
 * statements say how the row still reads this way), not in every reader. `metadata` is the
 * exact JSON text stored (pg would parse the json column, losing digits past a double's and
 * trailing zeros); amounts are numeric text; times are Dates.
 */
export interface InvoiceRow {
  id: string;
  merchant_id: string;
  is_test: boolean;
  api: Tables.ApiVersion;
  invoice_number: string;
  amount: string;
  currency: Tables.Currency;
  description: string | null;
  status: InvoiceStatus;
  payment_method: Tables.PaymentMethod;
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
  metadata: string | null;
  redirect_url: string | null;
  success_url: string | null;
  external_id: string | null;
  batch_id: string | null;
  refunded_amount: string;
  paid_method: Tables.PaymentMethod | null;
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
  c_kyc_status: Tables.KycStatus | null;
  c_is_blocked: boolean | null;
}

export type InvoiceWithCustomer = InvoiceRow & JoinedCustomer;

/** A new invoice as written, with whether its customer (if known) has passed KYC. */
export type CreatedInvoiceRow = InvoiceRow & { customer_kyc_verified: boolean };

/**
 * The columns the table fills itself (its defaults): a new row does not write them, and the
 * create's answer reads them back (insertInvoice), so the two cannot drift apart.
 */
const TABLE_FILLED = ['status', 'kyc_verified', 'refunded_amount', 'customer_id', 'paid_method', 'payer_bank', 'sbp_transaction_id', 'paid_at', 'expired_at', 'cancelled_at'] as const;

/** What `insertInvoice(s)` writes: every column but the ones the table fills itself. */
export type NewInvoiceRow = Omit<InvoiceRow, (typeof TABLE_FILLED)[number] | 'metadata'> & {
  /** The JSON value given at creation (written as json text). */
  metadata: unknown;
};

type Db = InvoicingQueries['$kysely'];
type Eb = ExpressionBuilder<Tables.DB & { i: Tables.Invoice }, 'i'>;

/** Every column of `i`, `metadata` as its text: of two columns with one name, pg keeps the later. */
const invoiceColumns = (eb: Eb) => [eb.cast<string | null>('i.metadata', 'text').as('metadata')] as const;

const selectRow = (db: Db) => db.selectFrom('invoices as i').selectAll('i').select(invoiceColumns);

/**
 * The invoice's customer: the one bound at payment, or before that the merchant's customer
 * with the invoice's e-mail (stored lower-case), else its phone. Three index probes at most,
 * in one statement with the read.
 */
function withCustomer(db: Db, from: 'invoices' | ReturnType<typeof pageOf>) {
  const base = from === 'invoices' ? db.selectFrom('invoices as i') : db.selectFrom(from);
  return base
    .leftJoinLateral(invoiceCustomer, (join) => join.onTrue())
    .selectAll('i')
    .select((eb) => [
      eb.cast<string | null>('i.metadata', 'text').as('metadata'),
      'c.id as c_id',
      'c.full_name as c_full_name',
      'c.email as c_email',
      'c.kyc_status as c_kyc_status',
      'c.is_blocked as c_is_blocked',
    ]);
}

/**
 * Which of the owner's invoices a list shows (GET /api/v2/invoices' query): all filters are
 * optional and combine with AND. `search` matches the invoice number (from its start), the id
 * (the whole UUID), the customer's e-mail, name and phone, and the description (anywhere in
 * them), case-insensitively.
 *
 * Indexes: the owner's (merchant_id, is_test, created_at, id) index narrows every list to one
 * merchant's rows in one mode, in the page's order; `status` has its own index; the method,
 * dates and `search` are filters over those rows. `search` uses no index of its own on purpose:
 * an ILIKE '%…%' needs a trigram (pg_trgm) index per column to be indexed, five of them written
 * on every invoice insert for a search over one merchant's invoices, which the owner's index
 * already bounds (the page stops once filled; its count reads the merchant's rows in that mode).
 */
export interface InvoiceFilter {
  status?: InvoiceStatus;
  /** `paymentMethod` as the list shows it: how the invoice was paid, else how it is offered. */
  method?: Tables.PaymentMethod;
  /** Created at or after. */
  createdFrom?: Date;
  /** Created before. */
  createdBefore?: Date;
  search?: string;
}

const UUID_TEXT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `text` as a LIKE pattern's literal part: its own %, _ and \\ matched as themselves. */
const likeLiteral = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The WHERE of an owner's filtered list, on `invoices` unaliased (the page and its count). */
const listed = (owner: Owner, f: InvoiceFilter) => (eb: ExpressionBuilder<Tables.DB, 'invoices'>) => {
  const search = f.search?.trim();
  const anywhere = search ? `%${likeLiteral(search)}%` : '';
  return eb.and([
    eb('merchant_id', '=', owner.merchantId),
    eb('is_test', '=', owner.isTest),
    ...(f.status !== undefined ? [eb('status', '=', f.status)] : []),
    // As the list shows `paymentMethod`: how it was paid, else how it is offered.
    ...(f.method !== undefined ? [eb(eb.fn.coalesce('paid_method', 'payment_method'), '=', f.method)] : []),
    ...(f.createdFrom !== undefined ? [eb('created_at', '>=', f.createdFrom)] : []),
    ...(f.createdBefore !== undefined ? [eb('created_at', '<', f.createdBefore)] : []),
    ...(search
      ? [
          eb.or([
            eb('invoice_number', 'ilike', `${likeLiteral(search)}%`),
            eb('customer_email', 'ilike', anywhere),
            eb('customer_name', 'ilike', anywhere),
            eb('customer_phone', 'ilike', anywhere),
            eb('description', 'ilike', anywhere),
            ...(UUID_TEXT.test(search) ? [eb('id', '=', search.toLowerCase())] : []),
          ]),
        ]
      : []),
  ]);
};

/** The owner's invoices page, picked by the index before the customer is joined onto its rows. */
function pageOf(db: Db, owner: Owner, q: { limit: number; offset: number } & InvoiceFilter) {
  return db
    .selectFrom('invoices')
    .selectAll()
    .where(listed(owner, q))
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(q.limit)
    .offset(q.offset)
    .as('i');
}

/** Postgres types of the inserted columns: `insertInvoice` writes them from a SELECT, whose parameters carry no column type. */
const INSERT_TYPES: { [K in keyof NewInvoiceRow]: Parameters<Eb['cast']>[1] } = {
  id: 'uuid',
  merchant_id: 'uuid',
  is_test: 'boolean',
  api: sql.id('ApiVersion'),
  invoice_number: 'text',
  amount: 'numeric',
  currency: sql.id('Currency'),
  description: 'text',
  payment_method: sql.id('PaymentMethod'),
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
const INSERT_COLUMNS = Object.keys(INSERT_TYPES) as (keyof NewInvoiceRow)[];

/**
 * What a new row's answer needs from the database: the columns the table fills itself, and
 * the ones it keeps its own way (the amount at its column's scale; the metadata, with
 * invoiceColumns). The rest are the row as written, so they do not travel back: a create's
 * row is ~40 columns, its QR image ~600 characters among them, which pg parsed for every create.
 */
const READ_BACK = [...TABLE_FILLED, 'amount'] as const;

/**
 * One statement, one round trip: the row is written only in a currency enabled for the
 * merchant (RUB when it never chose), checked in the same statement, and answered with
 * whether its customer has passed KYC (the customer's own KYC makes a new invoice kycVerified
 * at once). Returns null when the invoice number is taken or the currency is not enabled (the
 * caller tells which); any other conflict is an error.
 */
const INSERT = preparedStatement((db: Db, row: NewInvoiceRow) =>
  db
    .with('i', (w) =>
      w
        .insertInto('invoices')
        .columns(INSERT_COLUMNS)
        .expression(
          w
            .selectNoFrom((eb) => INSERT_COLUMNS.map((c) => eb.cast(eb.val(row[c]), INSERT_TYPES[c]).as(c)))
            .where((eb) =>
              eb(
                eb.cast(eb.val(row.currency), INSERT_TYPES.currency),
                '=',
                eb.fn('any', [
                  eb.fn.coalesce(
                    eb.selectFrom('merchant_settings').select('enabled_currencies').where('merchant_id', '=', row.merchant_id),
                    sql<Tables.Currency[]>`'{RUB}'`,
                  ),
                ]),
              ),
            ),
        )
        .onConflict((oc) => oc.column('invoice_number').doNothing())
        .returningAll(),
    )
    .selectFrom('i')
    .select(READ_BACK.map((c) => `i.${c}` as const))
    .select((eb) => [...invoiceColumns(eb as unknown as Eb), customerKycVerifiedOf(eb as unknown as Eb)]),
);

export async function insertInvoice(on: InvoicingQueries, row: NewInvoiceRow): Promise<CreatedInvoiceRow | null> {
  const db = on.$kysely;
  const [filled] = await INSERT(db, row);
  return filled ? { ...row, ...filled } : null;
}

/**
 * The invoice an earlier request made with this Idempotency-Key since `since`, as its create
 * answered it; null if none. Rare (a retry resuming a request that died), so it has no index
 * of its own: it reads the owner's invoices since `since` through (merchant, mode, createdAt).
 */
export async function selectCreatedByKey(on: InvoicingQueries, owner: Owner, api: 'v1' | 'v2', key: string, since: Date): Promise<CreatedInvoiceRow | null> {
  const db = on.$kysely;
  const made = await selectRow(db)
    .select(customerKycVerifiedOf)
    .where('i.merchant_id', '=', owner.merchantId)
    .where('i.is_test', '=', owner.isTest)
    .where('i.created_at', '>', since)
    .where('i.api', '=', api)
    .where('i.idempotency_key', '=', key)
    .orderBy('i.created_at')
    .limit(1)
    .executeTakeFirst();
  return made ?? null;
}

/**
 * Many invoices in one statement (1,000 rows cost one round trip). A row that clashes with a
 * unique value (its id again, its number, its externalId) is skipped, not an error: the
 * caller compares the ids returned with its own.
 */
export async function insertInvoices(tx: InvoicingQueries, rows: NewInvoiceRow[]): Promise<Set<string>> {
  if (rows.length === 0) return new Set();
  const inserted = await tx.$kysely.insertInto('invoices').values(rows).onConflict((oc) => oc.doNothing()).returning('id').execute();
  return new Set(inserted.map((r) => r.id));
}

/** Which of these invoice ids exist. */
export async function existingInvoiceIds(tx: InvoicingQueries, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await tx.$kysely.selectFrom('invoices').select('id').where('id', 'in', ids).execute();
  return new Set(rows.map((r) => r.id));
}

/** The merchant's externalIds already taken (by any earlier invoice of theirs in this mode). */
export async function takenExternalIds(on: InvoicingQueries, owner: Owner, ids: string[]): Promise<Set<string>> {
  const db = on.$kysely;
  if (ids.length === 0) return new Set();
  const rows = await db
    .selectFrom('invoices')
    .select('external_id')
    .where('merchant_id', '=', owner.merchantId)
    .where('is_test', '=', owner.isTest)
    .where('external_id', 'in', ids)
    .execute();
  return new Set(rows.map((r) => r.external_id!));
}

/** How many invoices a batch has written. */
export async function countBatchInvoices(tx: InvoicingQueries, batchId: string): Promise<number> {
  const { n } = await tx.$kysely
    .selectFrom('invoices')
    .select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('n'))
    .where('batch_id', '=', batchId)
    .executeTakeFirstOrThrow();
  return n;
}

/** The batch's invoices that have an e-mail address: who its payment links go to. */
export async function batchRecipients(tx: InvoicingQueries, batchId: string): Promise<{ id: string; customer_email: string }[]> {
  const rows = await tx.$kysely.selectFrom('invoices').select(['id', 'customer_email']).where('batch_id', '=', batchId).where('customer_email', 'is not', null).execute();
  return rows as { id: string; customer_email: string }[];
}

/** What the batch's paid invoices brought in, now. */
export async function batchPaidTotals(on: InvoicingQueries, batchId: string): Promise<{ paid_count: number; volume: string }> {
  const db = on.$kysely;
  return db
    .selectFrom('invoices')
    .select((eb) => [eb.cast<number>(eb.fn.countAll(), 'integer').as('paid_count'), eb.cast<string>(eb.fn.coalesce(eb.fn.sum('amount'), sql.lit(0)), 'text').as('volume')])
    .where('batch_id', '=', batchId)
    .where('status', '=', 'PAID')
    .executeTakeFirstOrThrow();
}

/** The fields of a payment-link e-mail, per invoice. */
export async function invoicesForEmails(on: InvoicingQueries, ids: string[]) {
  const db = on.$kysely;
  if (ids.length === 0) return [];
  return db.selectFrom('invoices').select(['id', 'amount', 'currency', 'description', 'expires_at']).where('id', 'in', ids).execute();
}

/** The batch's invoices, in the order they were created, for its export; the caller checked the batch is the owner's. */
export async function batchInvoices(on: InvoicingQueries, owner: Owner, batchId: string) {
  const db = on.$kysely;
  return db
    .selectFrom('invoices')
    .select(['id', 'external_id', 'amount', 'currency', 'status', 'description', 'customer_email', 'created_at', 'paid_at'])
    .where('batch_id', '=', batchId)
    .where('merchant_id', '=', owner.merchantId)
    .where('is_test', '=', owner.isTest)
    .orderBy('created_at')
    .orderBy('external_id')
    .orderBy('id')
    .execute();
}

/** QR images drawn per statement: ~0.25 ms of CPU each, so ~50 ms a chunk. */
const QR_CHUNK = 200;

type QrFields = Pick<InvoiceRow, 'id' | 'qr_code' | 'qr_payload'>;

/**
 * Draws the QR image of each row that has a payload but no image yet, stores it (only where
 * none is stored: two first reads at once draw the same image, the second write changes
 * nothing) and sets it on the row. One statement: CASE id WHEN … THEN its image … END.
 */
async function storeMissingQrCodes(on: InvoicingQueries, rows: QrFields[]): Promise<void> {
  const missing = rows.filter((r) => r.qr_code === null && r.qr_payload !== null);
  if (missing.length === 0) return;
  for (const r of missing) r.qr_code = qrPngDataUri(r.qr_payload!);
  await on.$kysely
    .updateTable('invoices')
    .set((eb) => {
      const [first, ...rest] = missing;
      let image = eb.case('id').when(first!.id).then(first!.qr_code!);
      for (const r of rest) image = image.when(r.id).then(r.qr_code!);
      return { qr_code: image.end() };
    })
    .where('id', 'in', missing.map((r) => r.id))
    .where('qr_code', 'is', null)
    .execute();
}

/**
 * The QR image of invoices written without one (`qrLater`: v1 creates, whose answer does not
 * carry it, and batch rows), drawn on their first view: every read that shows an invoice's QR
 * (v2 get and list, v1 get, the hosted page) passes its rows here, so it answers the image as
 * if it had been drawn at create. Each image is drawn once; later reads find it stored.
 */
export async function withQrCodes<T extends QrFields>(on: InvoicingQueries, rows: T[]): Promise<T[]> {
  for (let at = 0; at < rows.length; at += QR_CHUNK) await storeMissingQrCodes(on, rows.slice(at, at + QR_CHUNK));
  return rows;
}

/**
 * Draws and stores the QR image of every SBP invoice of a batch that has none yet, in chunks
 * (batch rows are written without it, so a 1,000-row batch completes in a fraction of a
 * second). Called once the batch is completed, before its job ends, and again by the batch
 * reconciler for a batch whose process stopped in between; a read before that draws the
 * images it shows (withQrCodes).
 */
export async function drawBatchQrCodes(on: InvoicingQueries, batchId: string): Promise<number> {
  const db = on.$kysely;
  let drawn = 0;
  for (;;) {
    const rows = await db
      .selectFrom('invoices')
      .select(['id', 'qr_code', 'qr_payload'])
      .where('batch_id', '=', batchId)
      .where('qr_code', 'is', null)
      .where('qr_payload', 'is not', null)
      .limit(QR_CHUNK)
      .execute();
    if (rows.length === 0) return drawn;
    await storeMissingQrCodes(on, rows);
    drawn += rows.length;
  }
}

const GET = preparedStatement((db: Db, p: { id: string; merchantId: string; isTest: boolean }) =>
  withCustomer(db, 'invoices').where('i.id', '=', p.id).where('i.merchant_id', '=', p.merchantId).where('i.is_test', '=', p.isTest),
);

/** One of the owner's invoices with its customer, in one statement; null when it is not theirs. */
export async function selectInvoice(on: InvoicingQueries, owner: Owner, id: string): Promise<InvoiceWithCustomer | null> {
  const db = on.$kysely;
  const [row] = await GET(db, { id, merchantId: owner.merchantId, isTest: owner.isTest });
  return row ?? null;
}

const PUBLIC_GET = preparedStatement((db: Db, p: { id: string }) => withCustomer(db, 'invoices').where('i.id', '=', p.id));

/** Any invoice by id, for its hosted page (the id in the link is the capability). */
export async function selectInvoiceById(on: InvoicingQueries, id: string): Promise<InvoiceWithCustomer | null> {
  const db = on.$kysely;
  const [row] = await PUBLIC_GET(db, { id });
  return row ?? null;
}

/** Newest first; the page is picked by the index, the customer joined onto its rows only. */
export async function selectInvoices(on: InvoicingQueries, owner: Owner, q: { limit: number; offset: number } & InvoiceFilter): Promise<{ rows: InvoiceWithCustomer[]; total: number }> {
  const db = on.$kysely;
  const [rows, count] = await Promise.all([
    withCustomer(db, pageOf(db, owner, q)).orderBy('i.created_at', 'desc').orderBy('i.id', 'desc').execute(),
    db
      .selectFrom('invoices')
      .select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('total'))
      .where(listed(owner, q))
      .executeTakeFirstOrThrow(),
  ]);
  return { rows, total: count.total };
}

/** Locks one invoice for a state change; `owner` narrows it to the caller's (API), pages pass none. */
export async function lockInvoice(tx: InvoicingQueries, id: string, owner?: Owner): Promise<InvoiceRow> {
  const row = await selectRow(tx.$kysely)
    .where('i.id', '=', id)
    .$if(owner !== undefined, (s) => s.where('i.merchant_id', '=', owner!.merchantId).where('i.is_test', '=', owner!.isTest))
    .forUpdate()
    .executeTakeFirst();
  if (!row) throw new ApiError('NOT_FOUND', `Invoice ${id} not found`);
  return row;
}

/** The columns a state change may set besides the status (which only `move` writes). */
type Change = Pick<Updateable<Tables.Invoice>, 'paid_at' | 'customer_id' | 'paid_method' | 'payer_bank' | 'sbp_transaction_id' | 'cancelled_at'>;

/** Sets some columns of an invoice locked by the caller (`lockInvoice`), and answers the row as it is now. */
async function change(tx: InvoicingQueries, id: string, set: Change): Promise<InvoiceRow> {
  return tx.$kysely.updateTable('invoices as i').set(set).where('i.id', '=', id).returningAll('i').returning(invoiceColumns).executeTakeFirstOrThrow();
}

/**
 * Moves an invoice to `to` (with `set`) only from a status transitions.ts allows, as the
 * UPDATE's own condition: a forbidden move writes nothing and throws InvoiceTransitionRefused.
 */
async function move(tx: InvoicingQueries, id: string, to: InvoiceStatus, set: Change): Promise<InvoiceRow> {
  const row = await tx.$kysely
    .updateTable('invoices as i')
    .set({ ...set, status: to })
    .where('i.id', '=', id)
    .where('i.status', 'in', statusesBefore(to))
    .returningAll('i')
    .returning(invoiceColumns)
    .executeTakeFirst();
  if (!row) throw new InvoiceTransitionRefused(id, to);
  return row;
}

/** PAID, with how and by whom it was paid. */
export function markPaid(
  tx: InvoicingQueries,
  id: string,
  paid: { at: Date; customerId: string | null; method: Tables.PaymentMethod; payerBank: string | null; sbpTransactionId: string | null },
): Promise<InvoiceRow> {
  return move(tx, id, 'PAID', { paid_at: paid.at, customer_id: paid.customerId, paid_method: paid.method, payer_bank: paid.payerBank, sbp_transaction_id: paid.sbpTransactionId });
}

/**
 * The acquirer's confirmation of a PENDING invoice that still waits for its receipt
 * (invoices/proof.ts): how it was paid is shown now (paymentMethod, payerBank,
 * sbpTransactionId), and is what the receipt's approval pays it with; the status stays PENDING.
 */
export function recordConfirmedPayment(tx: InvoicingQueries, id: string, paid: { method: Tables.PaymentMethod; payerBank: string | null; sbpTransactionId: string | null }): Promise<InvoiceRow> {
  return change(tx, id, { paid_method: paid.method, payer_bank: paid.payerBank, sbp_transaction_id: paid.sbpTransactionId });
}

/**
 * A fresh acquirer payment after a decline: the invoice now shows its QR (SBP) or form link
 * (card). Only while PENDING: a paid or closed invoice keeps what it showed.
 */
export async function setPaymentTarget(on: InvoicingQueries, id: string, target: { qrPayload: string; qrCode: string } | { originalPaymentUrl: string }): Promise<void> {
  const db = on.$kysely;
  await db
    .updateTable('invoices')
    .set('qrPayload' in target ? { qr_payload: target.qrPayload, qr_code: target.qrCode } : { original_payment_url: target.originalPaymentUrl })
    .where('id', '=', id)
    .where('status', '=', 'PENDING')
    .execute();
}

/** CANCELLED by the merchant. */
export function markCancelled(tx: InvoicingQueries, id: string, at: Date): Promise<InvoiceRow> {
  return move(tx, id, 'CANCELLED', { cancelled_at: at });
}

/** A SUCCEEDED refund adds to what the invoice has given back. */
export function addRefunded(tx: InvoicingQueries, id: string, amount: string): Promise<InvoiceRow> {
  return tx.$kysely
    .updateTable('invoices as i')
    .set((eb) => ({ refunded_amount: eb('i.refunded_amount', '+', eb.cast<string>(eb.val(amount), 'numeric')) }))
    .where('i.id', '=', id)
    .returningAll('i')
    .returning(invoiceColumns)
    .executeTakeFirstOrThrow();
}

/**
 * Expires up to `limit` PENDING invoices past `expiresAt`, claimed with FOR UPDATE SKIP LOCKED
 * and re-checked as PENDING, so several processes share the work and an invoice being paid at
 * that moment is left to its payment. Returns the rows it expired.
 */
export async function expireDue(tx: InvoicingQueries, now: Date, limit: number): Promise<InvoiceRow[]> {
  const db = tx.$kysely;
  return db
    .updateTable('invoices as i')
    .set({ status: 'EXPIRED', expired_at: now })
    .from(
      db
        .selectFrom('invoices')
        .select('id')
        .where('status', '=', 'PENDING')
        .where('expires_at', '<=', now)
        // An acquirer payment still open may have been paid in time: asked first (settleDueTBankPayments).
        .where(({ not, exists, selectFrom }) => not(exists(openAcquirerPayments(selectFrom))))
        // A receipt uploaded in time is decided first (the receipt worker, or its giveUp): it may be the half that pays (invoices/proof.ts).
        .where(({ not, exists, selectFrom }) => not(exists(receiptsInCheck(selectFrom))))
        .orderBy('expires_at')
        .limit(limit)
        .forUpdate()
        .skipLocked()
        .as('due'),
    )
    .whereRef('i.id', '=', 'due.id')
    .where('i.status', 'in', statusesBefore('EXPIRED'))
    .returningAll('i')
    .returning(invoiceColumns)
    .execute();
}

/** The acquirer payments of the outer invoice that the payer may still pay (Init answered, not settled). */
const openAcquirerPayments = (selectFrom: ExpressionBuilder<Tables.DB, 'invoices'>['selectFrom']) =>
  selectFrom('acquirer_payments as ap')
    .select('ap.attempt')
    .whereRef('ap.invoice_id', '=', 'invoices.id')
    .where('ap.payment_id', 'is not', null)
    .where('ap.status', 'not in', ['INIT', ...SETTLED_STATUSES]);

/** Receipts of the outer invoice uploaded before its `expiresAt` and not decided yet. */
const receiptsInCheck = (selectFrom: ExpressionBuilder<Tables.DB, 'invoices'>['selectFrom']) =>
  selectFrom('receipts as r').select('r.id').whereRef('r.invoice_id', '=', 'invoices.id').where('r.status', '=', 'PENDING').whereRef('r.created_at', '<=', 'invoices.expires_at');

/** PENDING invoices past `expiresAt` whose acquirer payment is still open: their acquirer is asked before they may expire. */
export async function dueWithOpenAcquirerPayment(on: InvoicingQueries, now: Date, limit: number): Promise<string[]> {
  const db = on.$kysely;
  const rows = await db
    .selectFrom('invoices')
    .select('id')
    .where('status', '=', 'PENDING')
    .where('expires_at', '<=', now)
    .where(({ exists, selectFrom }) => exists(openAcquirerPayments(selectFrom)))
    .orderBy('expires_at')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

/**
 * The invoice bound to an approved KYC session becomes `kycVerified`. Returns its bound
 * customer (null when unbound, or when the invoice is not the owner's).
 */
export async function markKycVerified(tx: InvoicingQueries, owner: Owner, id: string): Promise<string | null> {
  const row = await tx.$kysely
    .updateTable('invoices')
    .set({ kyc_verified: true })
    .where('id', '=', id)
    .where('merchant_id', '=', owner.merchantId)
    .where('is_test', '=', owner.isTest)
    .returning('customer_id')
    .executeTakeFirst();
  return row?.customer_id ?? null;
}

/** The customer bound to one of the owner's invoices, if any. */
export async function boundCustomerOf(tx: InvoicingQueries, owner: Owner, id: string): Promise<string | null> {
  const row = await tx.$kysely
    .selectFrom('invoices')
    .select('customer_id')
    .where('id', '=', id)
    .where('merchant_id', '=', owner.merchantId)
    .where('is_test', '=', owner.isTest)
    .executeTakeFirst();
  return row?.customer_id ?? null;
}

/** What an upload of a receipt needs to know of an invoice before storing the file; null when it is not there (or not the owner's). */
export async function receiptTargetOf(on: InvoicingQueries, id: string, owner?: Owner) {
  const db = on.$kysely;
  const row = await db
    .selectFrom('invoices')
    .select(['merchant_id', 'is_test', 'receipt_required', 'status', 'expires_at'])
    .where('id', '=', id)
    .$if(owner !== undefined, (s) => s.where('merchant_id', '=', owner!.merchantId).where('is_test', '=', owner!.isTest))
    .executeTakeFirst();
  return row ?? null;
}

/** The currency and provider order of invoices, by id (refunds answer in their invoice's currency). */
export async function currencyOf(on: InvoicingQueries, owner: Owner, id: string): Promise<Tables.Currency | null> {
  const db = on.$kysely;
  const row = await db.selectFrom('invoices').select('currency').where('id', '=', id).where('merchant_id', '=', owner.merchantId).where('is_test', '=', owner.isTest).executeTakeFirst();
  return row?.currency ?? null;
}

/** The provider's order of each invoice (refunds left PENDING are asked again by it). */
export async function externalOrdersOf(on: InvoicingQueries, ids: string[]): Promise<Map<string, string>> {
  const db = on.$kysely;
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom('invoices').select(['id', 'external_order_id']).where('id', 'in', ids).execute();
  return new Map(rows.map((r) => [r.id, r.external_order_id]));
}

/** The merchant's enabled currencies from its settings row (one primary-key probe); null when it has none. */
export async function merchantCurrencies(on: InvoicingQueries, merchantId: string): Promise<Tables.Currency[] | null> {
  const db = on.$kysely;
  const row = await db
    .selectFrom('merchant_settings')
    // As text[]: pg parses arrays of the types it knows, and an enum's array is not one of them.
    .select((eb) => eb.cast<Tables.Currency[]>('enabled_currencies', sql`text[]`).as('enabled_currencies'))
    .where('merchant_id', '=', merchantId)
    .executeTakeFirst();
  return row?.enabled_currencies ?? null;
}

/** Replaces the merchant's enabled currencies. */
export async function saveMerchantCurrencies(on: InvoicingQueries, merchantId: string, set: readonly Tables.Currency[], now: Date): Promise<void> {
  const db = on.$kysely;
  await db
    .insertInto('merchant_settings')
    // An enum array is written, and typed by the generated tables, as its Postgres literal.
    .values({ merchant_id: merchantId, enabled_currencies: `{${set.join(',')}}`, updated_at: now })
    .onConflict((oc) => oc.column('merchant_id').doUpdateSet((eb) => ({ enabled_currencies: eb.ref('excluded.enabled_currencies'), updated_at: eb.ref('excluded.updated_at') })))
    .execute();
}

/** The currency and number of each of these invoices, by id (another module's page that shows them: reviews). */
export async function invoiceLabelsOf(on: InvoicingQueries, ids: string[]): Promise<Map<string, { currency: Tables.Currency; invoiceNumber: string }>> {
  if (ids.length === 0) return new Map();
  const rows = await on.$kysely.selectFrom('invoices').select(['id', 'currency', 'invoice_number']).where('id', 'in', ids).execute();
  return new Map(rows.map((r) => [r.id, { currency: r.currency, invoiceNumber: r.invoice_number }]));
}
