import type { Owner } from '@pay/auth';
import { sql } from 'kysely';
import { type InvoicingQueries } from '../../db';
import type { RowError } from './csv';

/**
 * The statements on the batch module's tables (`batches`, `invoice_emails`): the only file
 * that names them. The batch use-cases (batches.ts, emails.ts, export.ts) call these.
 */

/** Sends an e-mail gets in all (see emails.ts): a row past it is no longer sent. */
export const MAX_EMAIL_ATTEMPTS = 20;

export interface NewBatch {
  id: string;
  merchant_id: string;
  is_test: boolean;
  total: number;
  valid: number;
  failed: number;
  send_emails: boolean;
  errors: RowError[];
  /** The rows the worker writes (a large batch); null when written in the request. */
  pending_rows: unknown[] | null;
  created_at: Date;
}

/** A new batch, `processing`. */
export async function insertBatch(tx: InvoicingQueries, b: NewBatch): Promise<void> {
  await tx.$kysely
    .insertInto('batches')
    .values({ ...b, status: 'processing', errors: JSON.stringify(b.errors), pending_rows: b.pending_rows === null ? null : JSON.stringify(b.pending_rows) })
    .execute();
}

/** What the worker needs of a batch; undefined when there is none. */
export function batchForWork(on: InvoicingQueries, batchId: string) {
  const tables = on.$kysely;
  return tables.selectFrom('batches').select(['merchant_id', 'is_test', 'status', 'pending_rows']).where('id', '=', batchId).executeTakeFirst();
}

/** One of the owner's batches, as its GET shows it; undefined when not the owner's. */
export function ownedBatch(on: InvoicingQueries, owner: Owner, batchId: string) {
  const tables = on.$kysely;
  return tables
    .selectFrom('batches')
    .select(['status', 'total', 'created', 'failed', 'created_at'])
    .where('id', '=', batchId)
    .where('merchant_id', '=', owner.merchantId)
    .where('is_test', '=', owner.isTest)
    .executeTakeFirst();
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

/** Marks a `processing` batch completed (once); returns whether it sends e-mails, undefined when it was not processing. */
export async function markBatchCompleted(tx: InvoicingQueries, batchId: string, created: number, now: Date): Promise<{ send_emails: boolean } | undefined> {
  return tx.$kysely
    .updateTable('batches')
    .set({ status: 'completed', completed_at: now, pending_rows: null, created })
    .where('id', '=', batchId)
    .where('status', '=', 'processing')
    .returning('send_emails')
    .executeTakeFirst();
}

/** One e-mail row per recipient (an invoice's first only); returns how many were queued. */
export async function queueBatchEmails(tx: InvoicingQueries, batchId: string, recipients: Array<{ id: string; customer_email: string }>, now: Date): Promise<number> {
  const queued = await tx.$kysely
    .insertInto('invoice_emails')
    .values(recipients.map((r) => ({ invoice_id: r.id, batch_id: batchId, to_address: r.customer_email, created_at: now })))
    .onConflict((oc) => oc.column('invoice_id').doNothing())
    .executeTakeFirst();
  return Number(queued.numInsertedOrUpdatedRows ?? 0);
}

/** A batch's e-mails by outcome, for its GET: `retrying` while a failed one has attempts left, `lastError` the SMTP error of one that failed. */
export async function batchEmailCounts(on: InvoicingQueries, batchId: string) {
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
export function unsentBatchEmails(on: InvoicingQueries, batchId: string) {
  const tables = on.$kysely;
  return tables
    .selectFrom('invoice_emails')
    .select(['invoice_id', 'to_address'])
    .where('batch_id', '=', batchId)
    .where('status', '<>', 'sent')
    .where('attempts', '<', MAX_EMAIL_ATTEMPTS)
    .orderBy('invoice_id')
    .execute();
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
export function emailsOfBatch(on: InvoicingQueries, batchId: string) {
  const tables = on.$kysely;
  return tables.selectFrom('invoice_emails').select(['invoice_id', 'status', 'attempts', 'last_error']).where('batch_id', '=', batchId).execute();
}
