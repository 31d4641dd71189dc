import { randomUUID } from 'node:crypto';
import type { Owner } from '@pay/auth';
import { money, pgSql, readableNumber, type Sql } from '@pay/kit';
import { outboxMessage, writeOutbox } from '@pay/queue';
import { ApiError } from '@pay/schemas';
import type { InvoicingDeps } from '../deps';
import { enabledCurrencies } from '../invoices/currencies';
import { newInvoiceRow, type Currency } from '../invoices/invoices';
import { drawBatchQrCodes, insertInvoices } from '../invoices/store';
import { V1_DEFAULT_VALIDITY_HOURS } from '../v1/schemas';
import { parseBatchCsv, type BatchDefaults, type BatchRow, type RowError } from './csv';
import { MAX_EMAIL_ATTEMPTS } from './emails';

const HOUR_MS = 3_600_000;
/** Rows written per transaction by the worker: each chunk moves the progress the GET shows. */
export const CHUNK_ROWS = 250;
/** Draws of invoice numbers for rows whose number was taken (one in 10^12 each). */
const NUMBER_ATTEMPTS = 3;

/** A valid row as kept for the worker (`batches.pending_rows`), its invoice id drawn already. */
interface StoredRow {
  id: string;
  row: number;
  amount: string;
  currency: Currency;
  description: string | null;
  email: string | null;
  externalId: string | null;
  redirectUrl: string | null;
}

export interface BatchInput extends BatchDefaults {
  csv: Buffer;
  sendEmails: boolean;
}

export interface BatchResult {
  batchId: string;
  total: number;
  created: number;
  failed: number;
  invoices: { id: string; amount: string; currency: Currency; externalId: string | null }[];
  errors: RowError[];
}

const stored = (r: BatchRow): StoredRow => ({ id: randomUUID(), row: r.row, amount: r.amount.toFixed(), currency: r.currency, description: r.description, email: r.email, externalId: r.externalId, redirectUrl: r.redirectUrl });

/** The merchant's externalIds already taken (by any earlier invoice of theirs in this mode). */
async function takenExternalIds(sql: Sql, owner: Owner, ids: string[]): Promise<Set<string>> {
  const rows = await sql.$queryRawUnsafe<{ external_id: string }[]>(
    'SELECT external_id FROM invoicing.invoices WHERE merchant_id = $1 AND is_test = $2 AND external_id = ANY($3::text[])',
    owner.merchantId,
    owner.isTest,
    ids,
  );
  return new Set(rows.map((r) => r.external_id));
}

/**
 * Writes the invoices of some rows in one set-based statement. A row whose id already exists
 * was written by an earlier run (a retried job): done. A row whose externalId another
 * invoice took meanwhile (a concurrent batch; the unique index decides) becomes a row error.
 * A row whose drawn number was taken draws again.
 */
async function writeRows(deps: InvoicingDeps, tx: Sql, owner: Owner, batchId: string, rows: StoredRow[], now: Date): Promise<RowError[]> {
  const specs = await Promise.all(
    rows.map(async (r) => ({
      r,
      row: await newInvoiceRow(
        deps,
        owner,
        {
          api: 'v1',
          amount: money(r.amount),
          currency: r.currency,
          method: 'sbp',
          description: r.description,
          expiresAt: new Date(now.getTime() + V1_DEFAULT_VALIDITY_HOURS * HOUR_MS),
          customerEmail: r.email,
          redirectUrl: r.redirectUrl,
          externalId: r.externalId,
          batchId,
          qrLater: true,
        },
        now,
        r.id,
      ),
    })),
  );
  let todo = specs;
  for (let attempt = 1; todo.length > 0; attempt++) {
    const inserted = await insertInvoices(tx, todo.map((s) => ({ ...s.row, invoice_number: readableNumber('INV', now) })));
    const missing = todo.filter((s) => !inserted.has(s.r.id));
    if (missing.length === 0) return [];
    const present = await tx.$queryRawUnsafe<{ id: string }[]>('SELECT id FROM invoicing.invoices WHERE id = ANY($1::uuid[])', missing.map((s) => s.r.id));
    const done = new Set(present.map((p) => p.id));
    const ids = missing.filter((s) => !done.has(s.r.id) && s.r.externalId).map((s) => s.r.externalId!);
    const taken = ids.length ? await takenExternalIds(tx, owner, ids) : new Set<string>();
    const clashes = missing.filter((s) => !done.has(s.r.id) && s.r.externalId && taken.has(s.r.externalId));
    todo = missing.filter((s) => !done.has(s.r.id) && !clashes.includes(s));
    if (todo.length && attempt >= NUMBER_ATTEMPTS) throw new Error(`no free invoice numbers for ${todo.length} rows after ${NUMBER_ATTEMPTS} draws`);
    if (clashes.length) {
      return clashes.map((s) => ({ row: s.r.row, externalId: s.r.externalId, error: `externalId "${s.r.externalId}" was used by an earlier invoice` }));
    }
  }
  return [];
}

/**
 * Rows that turned out to clash are moved from the valid count to the errors, each once: a
 * retried chunk finds the same clashes again and adds nothing.
 */
async function recordClashes(tx: Sql, batchId: string, clashes: RowError[]): Promise<void> {
  if (clashes.length === 0) return;
  await tx.$executeRawUnsafe(
    `WITH cur AS (SELECT errors FROM invoicing.batches WHERE id = $1 FOR UPDATE),
          fresh AS (SELECT e FROM jsonb_array_elements($2::jsonb) e, cur
                     WHERE NOT cur.errors @> jsonb_build_array(jsonb_build_object('row', e->'row')))
     UPDATE invoicing.batches
        SET errors = errors || COALESCE((SELECT jsonb_agg(e) FROM fresh), '[]'::jsonb),
            failed = failed + (SELECT count(*) FROM fresh), valid = valid - (SELECT count(*) FROM fresh)
      WHERE id = $1`,
    batchId,
    JSON.stringify(clashes),
  );
}

/**
 * Marks the batch completed (once: conditional on `processing`), with its e-mails queued when
 * asked for: a row per invoice with an address, and one job that sends them. Says whether it
 * queued any.
 */
async function completeBatch(tx: Sql, batchId: string, now: Date): Promise<boolean> {
  const [done] = await tx.$queryRawUnsafe<{ send_emails: boolean; created_at: Date }[]>(
    `UPDATE invoicing.batches SET status = 'completed', completed_at = $2, pending_rows = NULL,
            created = (SELECT count(*) FROM invoicing.invoices WHERE batch_id = $1)
      WHERE id = $1 AND status = 'processing' RETURNING send_emails`,
    batchId,
    now,
  );
  if (!done?.send_emails) return false;
  const queued = await tx.$executeRawUnsafe(
    `INSERT INTO invoicing.invoice_emails (invoice_id, batch_id, to_address, created_at)
     SELECT id, batch_id, customer_email, $2 FROM invoicing.invoices WHERE batch_id = $1 AND customer_email IS NOT NULL
     ON CONFLICT (invoice_id) DO NOTHING`,
    batchId,
    now,
  );
  if (queued === 0) return false;
  await writeOutbox(tx, outboxMessage('batchEmails', `batch-emails-${batchId}`, { batchId }));
  return true;
}

/**
 * The batch's QR images (drawBatchQrCodes) once its invoices are written: at once when it sends
 * no e-mail, otherwise after its e-mail job's pass (the e-mail worker calls it), so the images'
 * CPU does not hold back the payment links on their way to the customers.
 */
export const drawQrCodesOf = (deps: Pick<InvoicingDeps, 'sql'>, batchId: string) => drawBatchQrCodes(deps.sql, batchId);

/**
 * POST /api/v1/batch/invoices. Every row is checked first; a file without one valid row is
 * refused (422) with nothing written. Up to BATCH_INLINE_ROWS valid rows are written now, in
 * one transaction with the batch; a larger batch is stored with its rows (their invoice ids
 * drawn already, so the answer can name them) and written by the queue worker, its status
 * `processing` until done.
 */
export async function createBatch(deps: InvoicingDeps, owner: Owner, input: BatchInput): Promise<BatchResult> {
  const sql = pgSql(deps.sql);
  const enabled = await enabledCurrencies(deps.sql, owner.merchantId);
  const parsed = await parseBatchCsv(input.csv.toString('utf8'), input, enabled, (ids) => takenExternalIds(sql, owner, ids));
  const batchId = randomUUID();
  const rows = parsed.valid.map(stored);
  const now = deps.clock.now();
  const inline = rows.length <= deps.config.BATCH_INLINE_ROWS;
  const errors = [...parsed.errors];
  let mailing = false;
  await sql.$transaction(async (tx) => {
    await tx.$executeRawUnsafe(
      `INSERT INTO invoicing.batches (id, merchant_id, is_test, status, total, valid, failed, send_emails, errors, pending_rows, created_at)
       VALUES ($1, $2, $3, 'processing', $4, $5, $6, $7, $8::jsonb, $9::jsonb, $10)`,
      batchId,
      owner.merchantId,
      owner.isTest,
      parsed.total,
      rows.length,
      parsed.errors.length,
      input.sendEmails,
      JSON.stringify(parsed.errors),
      inline ? null : JSON.stringify(rows),
      now,
    );
    if (inline) {
      const clashes = await writeRows(deps, tx, owner, batchId, rows, now);
      await recordClashes(tx, batchId, clashes);
      errors.push(...clashes);
      mailing = await completeBatch(tx, batchId, now);
    } else {
      await writeOutbox(tx, outboxMessage('batchInvoices', `batch-${batchId}`, { batchId }));
    }
  });
  deps.kickOutbox();
  if (inline && !mailing) await drawQrCodesOf(deps, batchId);
  const failedRows = new Set(errors.map((e) => e.row));
  const invoices = rows.filter((r) => !failedRows.has(r.row));
  errors.sort((a, b) => a.row - b.row);
  return {
    batchId,
    total: parsed.total,
    created: invoices.length,
    failed: errors.length,
    invoices: invoices.map((r) => ({ id: r.id, amount: r.amount, currency: r.currency, externalId: r.externalId })),
    errors,
  };
}

/**
 * The queue worker's part: writes the stored rows in chunks of CHUNK_ROWS, each chunk its own
 * transaction that also moves `created`, then completes the batch. Safe to run again.
 */
export async function processBatch(deps: InvoicingDeps, batchId: string): Promise<void> {
  const sql = pgSql(deps.sql);
  const [batch] = await sql.$queryRawUnsafe<{ merchant_id: string; is_test: boolean; status: string; pending_rows: StoredRow[] | null }[]>(
    'SELECT merchant_id, is_test, status::text, pending_rows FROM invoicing.batches WHERE id = $1',
    batchId,
  );
  if (!batch || batch.status !== 'processing') return;
  const owner: Owner = { merchantId: batch.merchant_id, isTest: batch.is_test };
  const rows = batch.pending_rows ?? [];
  for (let i = 0; i < rows.length; i += CHUNK_ROWS) {
    await sql.$transaction(async (tx) => {
      const clashes = await writeRows(deps, tx, owner, batchId, rows.slice(i, i + CHUNK_ROWS), deps.clock.now());
      await recordClashes(tx, batchId, clashes);
      await tx.$executeRawUnsafe('UPDATE invoicing.batches SET created = (SELECT count(*) FROM invoicing.invoices WHERE batch_id = $1) WHERE id = $1', batchId);
    });
  }
  const mailing = await sql.$transaction((tx) => completeBatch(tx, batchId, deps.clock.now()));
  deps.kickOutbox();
  if (!mailing) await drawQrCodesOf(deps, batchId);
}

/**
 * The payment-link e-mails of a batch uploaded with sendEmails, counted by their state now:
 * a batch is `completed` once its invoices are written, whatever became of its e-mails, so
 * this says whether they reached anyone. `outcome`: `sending` while any is pending, `sent`
 * when all went out, `some_failed` or `all_failed` when the last attempt of some or all
 * failed (`retrying` while attempts remain; `lastError` is one of their SMTP errors).
 */
export interface BatchEmails {
  sent: number;
  failed: number;
  pending: number;
  outcome: 'sending' | 'sent' | 'some_failed' | 'all_failed';
  retrying: boolean;
  lastError: string | null;
}

export interface BatchSummary {
  batchId: string;
  status: 'processing' | 'completed';
  total: number;
  created: number;
  failed: number;
  paidCount: number;
  totalVolume: string;
  createdAt: Date;
  /** Null when the batch sends no e-mail (sendEmails=false, or no row has an address). */
  emails: BatchEmails | null;
}

export function emailOutcome(c: { sent: number; failed: number; pending: number }): BatchEmails['outcome'] {
  if (c.pending > 0) return 'sending';
  if (c.failed === 0) return 'sent';
  return c.sent === 0 ? 'all_failed' : 'some_failed';
}

/** GET /api/v1/batch/invoices/{batchId}: progress and, live, what its invoices brought in and whether its e-mails went out. */
export async function batchSummary(deps: InvoicingDeps, owner: Owner, batchId: string): Promise<BatchSummary> {
  const res = await deps.sql.query<{
    status: 'processing' | 'completed';
    total: number;
    created: number;
    failed: number;
    paid_count: number;
    volume: string;
    created_at: Date;
    emails_sent: number;
    emails_failed: number;
    emails_pending: number;
    emails_retrying: boolean | null;
    email_error: string | null;
  }>(
    `SELECT b.status::text AS status, b.total, b.created, b.failed, b.created_at, p.paid_count, p.volume,
            e.emails_sent, e.emails_failed, e.emails_pending, e.emails_retrying, e.email_error
       FROM invoicing.batches b
       CROSS JOIN LATERAL (SELECT count(*)::int AS paid_count, COALESCE(sum(amount), 0)::text AS volume
                             FROM invoicing.invoices WHERE batch_id = b.id AND status = 'PAID') p
       CROSS JOIN LATERAL (SELECT count(*) FILTER (WHERE status = 'sent')::int AS emails_sent,
                                  count(*) FILTER (WHERE status = 'failed')::int AS emails_failed,
                                  count(*) FILTER (WHERE status = 'pending')::int AS emails_pending,
                                  bool_or(status = 'failed' AND attempts < $4) AS emails_retrying,
                                  max(last_error) FILTER (WHERE status = 'failed') AS email_error
                             FROM invoicing.invoice_emails WHERE batch_id = b.id) e
      WHERE b.id = $1 AND b.merchant_id = $2 AND b.is_test = $3`,
    [batchId, owner.merchantId, owner.isTest, MAX_EMAIL_ATTEMPTS],
  );
  const b = res.rows[0];
  if (!b) throw new ApiError('NOT_FOUND', `Batch ${batchId} not found`);
  const counts = { sent: b.emails_sent, failed: b.emails_failed, pending: b.emails_pending };
  const emails =
    counts.sent + counts.failed + counts.pending === 0
      ? null
      : { ...counts, outcome: emailOutcome(counts), retrying: b.emails_retrying === true, lastError: b.email_error };
  return { batchId, status: b.status, total: b.total, created: b.created, failed: b.failed, paidCount: b.paid_count, totalVolume: b.volume, createdAt: b.created_at, emails };
}

/** Batches still `processing` (their job may have been lost with Redis): the reconciler re-adds their jobs. */
export async function openBatches(deps: InvoicingDeps): Promise<string[]> {
  const rows = await deps.sql.query<{ id: string }>(`SELECT id FROM invoicing.batches WHERE status = 'processing' ORDER BY created_at LIMIT 100`);
  return rows.rows.map((r) => r.id);
}
