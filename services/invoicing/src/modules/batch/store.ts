import type { Owner } from '@pay/auth';
import { sql, type Selectable } from 'kysely';
import { type InvoicingQueries, type Tables } from '../../db';
import type { RowError } from './csv';

/**
 * The statements on the batch module's tables (`batches`, `invoice_emails`): the only file
 * that names them. The batch use-cases (batches.ts, emails.ts, export.ts) call these, and get
 * the records declared here, not the generated rows: a renamed or retyped column fails the
 * type check in this store (in the mappers below), not in every reader.
 */

/** Sends an e-mail gets in all (see emails.ts): a row past it is no longer sent. */
export const MAX_EMAIL_ATTEMPTS = 20;

export type BatchStatus = Tables.BatchStatus;
export type EmailStatus = Tables.EmailStatus;

/** A batch as the module hands it out. */
export interface BatchRecord {
  id: string;
  merchantId: string;
  isTest: boolean;
  status: BatchStatus;
  /** Data rows in the file. */
  total: number;
  /** Rows that passed validation: the invoices this batch makes. */
  valid: number;
  /** Invoices written so far (reaches `valid` when completed). */
  created: number;
  failed: number;
  sendEmails: boolean;
  createdAt: Date;
  completedAt: Date | null;
}

/**
 * A batch with its failed rows and the rows the worker has still to write: as long as the
 * file, so read only by the worker (and tests), never by a GET.
 */
export interface BatchWithRows extends BatchRecord {
  errors: RowError[];
  /** The rows the worker writes (a large batch); null when written in the request, and once completed. */
  pendingRows: unknown[] | null;
}

type BatchColumns = Selectable<Tables.Batch>;

/** The columns of a `BatchRecord`: what every read of a batch takes. */
const RECORD_COLUMNS = ['id', 'merchant_id', 'is_test', 'status', 'total', 'valid', 'created', 'failed', 'send_emails', 'created_at', 'completed_at'] as const satisfies readonly (keyof BatchColumns)[];
type RecordColumns = Pick<BatchColumns, (typeof RECORD_COLUMNS)[number]>;

/** A batch's row as the module hands it out: with its rows when the read took them. */
function batchOf(r: BatchColumns): BatchWithRows;
function batchOf(r: RecordColumns): BatchRecord;
function batchOf(r: RecordColumns & Partial<Pick<BatchColumns, 'errors' | 'pending_rows'>>): BatchRecord | BatchWithRows {
  const record: BatchRecord = {
    id: r.id,
    merchantId: r.merchant_id,
    isTest: r.is_test,
    status: r.status,
    total: r.total,
    valid: r.valid,
    created: r.created,
    failed: r.failed,
    sendEmails: r.send_emails,
    createdAt: r.created_at,
    completedAt: r.completed_at,
  };
  if (r.errors === undefined || r.pending_rows === undefined) return record;
  return { ...record, errors: r.errors as unknown as RowError[], pendingRows: r.pending_rows as unknown[] | null };
}

/** A new batch as written: `processing`, nothing created yet. */
export type NewBatch = Omit<BatchWithRows, 'status' | 'created' | 'completedAt'>;

/** A new batch, `processing`. */
export async function insertBatch(tx: InvoicingQueries, b: NewBatch): Promise<void> {
  await tx.$kysely
    .insertInto('batches')
    .values({
      id: b.id,
      merchant_id: b.merchantId,
      is_test: b.isTest,
      status: 'processing',
      total: b.total,
      valid: b.valid,
      failed: b.failed,
      send_emails: b.sendEmails,
      errors: JSON.stringify(b.errors),
      pending_rows: b.pendingRows === null ? null : JSON.stringify(b.pendingRows),
      created_at: b.createdAt,
    })
    .execute();
}

/** A batch with its rows, for the worker; undefined when there is none. */
export async function batchForWork(on: InvoicingQueries, batchId: string): Promise<BatchWithRows | undefined> {
  const row = await on.$kysely.selectFrom('batches').selectAll().where('id', '=', batchId).executeTakeFirst();
  return row && batchOf(row);
}

/** One of the owner's batches, as its GET shows it (without its rows); undefined when not the owner's. */
export async function ownedBatch(on: InvoicingQueries, owner: Owner, batchId: string): Promise<BatchRecord | undefined> {
  const row = await on.$kysely
    .selectFrom('batches')
    .select(RECORD_COLUMNS)
    .where('id', '=', batchId)
    .where('merchant_id', '=', owner.merchantId)
    .where('is_test', '=', owner.isTest)
    .executeTakeFirst();
  return row && batchOf(row);
}

/** Batches still `processing`, oldest first (at most 100). */
export async function processingBatchIds(on: InvoicingQueries): Promise<string[]> {
  const tables = on.$kysely;
  const rows = await tables.selectFrom('batches').select('id').where('status', '=', 'processing').orderBy('created_at').limit(100).execute();
  return rows.map((r) => r.id);
}

/** Sets the batch's count of invoices written. */
export async function setBatchCreated(tx: InvoicingQueries, batchId: string, created: number): Promise<void> {
  await tx.$kysely.updateTable('batches').set({ created }).where('id', '=', batchId).execute();
}

/**
 * Rows that turned out to clash are moved from the valid count to the errors, each once
 * (under the batch's row lock): a retried chunk finds the same clashes again and adds nothing.
 */
export async function recordBatchClashes(tx: InvoicingQueries, batchId: string, clashes: RowError[]): Promise<void> {
  if (clashes.length === 0) return;
  const db = tx.$kysely;
  const batch = await db.selectFrom('batches').select('errors').where('id', '=', batchId).forUpdate().executeTakeFirstOrThrow();
  const recorded = new Set((batch.errors as RowError[]).map((e) => e.row));
  const fresh = clashes.filter((c) => !recorded.has(c.row));
  if (fresh.length === 0) return;
  await db
    .updateTable('batches')
    .set((eb) => ({
      errors: sql`${eb.ref('errors')} || ${JSON.stringify(fresh)}::jsonb`,
      failed: eb('failed', '+', fresh.length),
      valid: eb('valid', '-', fresh.length),
    }))
    .where('id', '=', batchId)
    .execute();
}

/** Marks a `processing` batch completed (once); returns it, undefined when it was not processing. */
export async function markBatchCompleted(tx: InvoicingQueries, batchId: string, created: number, now: Date): Promise<BatchRecord | undefined> {
  const row = await tx.$kysely
    .updateTable('batches')
    .set({ status: 'completed', completed_at: now, pending_rows: null, created })
    .where('id', '=', batchId)
    .where('status', '=', 'processing')
    .returning(RECORD_COLUMNS)
    .executeTakeFirst();
  return row && batchOf(row);
}

/** One e-mail row per recipient (an invoice's first only); returns how many were queued. */
export async function queueBatchEmails(tx: InvoicingQueries, batchId: string, recipients: Array<{ id: string; customer_email: string; language: string | null }>, now: Date): Promise<number> {
  const queued = await tx.$kysely
    .insertInto('invoice_emails')
    .values(recipients.map((r) => ({ invoice_id: r.id, batch_id: batchId, to_address: r.customer_email, language: r.language, created_at: now })))
    .onConflict((oc) => oc.column('invoice_id').doNothing())
    .executeTakeFirst();
  return Number(queued.numInsertedOrUpdatedRows ?? 0);
}

/** A batch's payment-link e-mail to one invoice's customer, as the module hands it out. */
export interface BatchEmailRecord {
  invoiceId: string;
  batchId: string;
  toAddress: string;
  /** The row's `language` column (`ru`, `en`, `kk`); null: the merchant's default. */
  language: string | null;
  status: EmailStatus;
  /** Sends tried (at most MAX_EMAIL_ATTEMPTS). */
  attempts: number;
  /** The SMTP error of the last failed attempt. */
  lastError: string | null;
  sentAt: Date | null;
  createdAt: Date;
}

/** An e-mail's row as the module hands it out. */
function emailOf(r: Selectable<Tables.InvoiceEmail>): BatchEmailRecord {
  return {
    invoiceId: r.invoice_id,
    batchId: r.batch_id,
    toAddress: r.to_address,
    language: r.language,
    status: r.status,
    attempts: r.attempts,
    lastError: r.last_error,
    sentAt: r.sent_at,
    createdAt: r.created_at,
  };
}

/** A batch's e-mails by outcome: `retrying` while a failed one has attempts left, `lastError` the SMTP error of one that failed. */
export interface BatchEmailCounts {
  sent: number;
  failed: number;
  pending: number;
  retrying: boolean | null;
  lastError: string | null;
}

/** A batch's e-mails by outcome, for its GET. */
export async function batchEmailCounts(on: InvoicingQueries, batchId: string): Promise<BatchEmailCounts> {
  const tables = on.$kysely;
  return tables
    .selectFrom('invoice_emails')
    .select((eb) => [
      eb.cast<number>(eb.fn.countAll().filterWhere('status', '=', 'sent'), 'integer').as('sent'),
      eb.cast<number>(eb.fn.countAll().filterWhere('status', '=', 'failed'), 'integer').as('failed'),
      eb.cast<number>(eb.fn.countAll().filterWhere('status', '=', 'pending'), 'integer').as('pending'),
      eb.fn.agg<boolean | null>('bool_or', [eb.and([eb('status', '=', 'failed'), eb('attempts', '<', MAX_EMAIL_ATTEMPTS)])]).as('retrying'),
      eb.fn.max('last_error').filterWhere('status', '=', 'failed').as('lastError'),
    ])
    .where('batch_id', '=', batchId)
    .executeTakeFirstOrThrow();
}

/** A batch's e-mails not sent with attempts left, by invoice id. */
export async function unsentBatchEmails(on: InvoicingQueries, batchId: string): Promise<BatchEmailRecord[]> {
  const rows = await on.$kysely
    .selectFrom('invoice_emails')
    .selectAll()
    .where('batch_id', '=', batchId)
    .where('status', '<>', 'sent')
    .where('attempts', '<', MAX_EMAIL_ATTEMPTS)
    .orderBy('invoice_id')
    .execute();
  return rows.map(emailOf);
}

/** Records e-mails sent (an attempt each). */
export async function markEmailsSent(on: InvoicingQueries, invoiceIds: string[], now: Date): Promise<void> {
  const tables = on.$kysely;
  await tables
    .updateTable('invoice_emails')
    .set((eb) => ({ status: 'sent', sent_at: now, attempts: eb('attempts', '+', 1), last_error: null }))
    .where('invoice_id', 'in', invoiceIds)
    .execute();
}

/** Records failed e-mails (an attempt each, with its SMTP error), in one statement. */
export async function markEmailsFailed(on: InvoicingQueries, failed: Array<{ id: string; error: string }>): Promise<void> {
  const tables = on.$kysely;
  await tables
    .updateTable('invoice_emails')
    .set((eb) => {
      // One statement: CASE invoice_id WHEN … THEN its error … END.
      const [first, ...rest] = failed;
      let error = eb.case('invoice_id').when(first!.id).then(first!.error);
      for (const f of rest) error = error.when(f.id).then(f.error);
      return { status: 'failed', attempts: eb('attempts', '+', 1), last_error: error.end() };
    })
    .where('invoice_id', 'in', failed.map((f) => f.id))
    .execute();
}

/** Batches with e-mails not sent and attempts left (at most 100). */
export async function batchIdsWithUnsentEmails(on: InvoicingQueries): Promise<string[]> {
  const tables = on.$kysely;
  const rows = await tables.selectFrom('invoice_emails').select('batch_id').distinct().where('status', '<>', 'sent').where('attempts', '<', MAX_EMAIL_ATTEMPTS).limit(100).execute();
  return rows.map((r) => r.batch_id);
}

/** Every e-mail of a batch with its state. */
export async function emailsOfBatch(on: InvoicingQueries, batchId: string): Promise<BatchEmailRecord[]> {
  const rows = await on.$kysely.selectFrom('invoice_emails').selectAll().where('batch_id', '=', batchId).execute();
  return rows.map(emailOf);
}
