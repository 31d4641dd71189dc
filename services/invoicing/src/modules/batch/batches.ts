import { randomUUID } from 'node:crypto';
import type { BrandLanguage } from '@pay/accounts';
import type { Owner } from '@pay/auth';
import { readableNumber } from '@pay/runtime';
import { money } from '@pay/money';
import { outboxMessage, writeOutbox } from '@pay/queue';
import { ApiError } from '@pay/schemas';
import type { InvoicingDeps, BatchDeps } from '../../deps';
import { enabledCurrencies } from '../invoices/currencies';
import { newInvoiceRow, providerFor, type Currency } from '../invoices/invoices';
import type { InvoicingQueries } from '../../db';
import { batchPaidTotals, batchRecipients, countBatchInvoices, drawBatchQrCodes, existingInvoiceIds, insertInvoices, takenExternalIds } from '../invoices/published';
import { V1_DEFAULT_VALIDITY_HOURS } from '../invoices/v1/schemas';
import { parseBatchCsv, type BatchDefaults, type BatchRow, type RowError } from './csv';
import { batchEmailCounts, batchForWork, insertBatch, markBatchCompleted, ownedBatch, processingBatchIds, queueBatchEmails, recordBatchClashes, setBatchCreated } from './store';

const HOUR_MS = 3_600_000;
/** Rows written per transaction by the worker: each chunk moves the progress the GET shows. */
export const CHUNK_ROWS = 250;
/** Draws of invoice numbers for rows whose number was taken (one in 10^12 each). */
const NUMBER_ATTEMPTS = 3;

/** A valid row as kept for the worker (a batch's `pendingRows`), its invoice id drawn already. */
interface StoredRow {
  id: string;
  row: number;
  amount: string;
  currency: Currency;
  description: string | null;
  email: string | null;
  externalId: string | null;
  redirectUrl: string | null;
  /** The row's e-mail language; null or absent (a row stored before the column): the merchant's default. */
  language?: BrandLanguage | null;
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

const stored = (r: BatchRow): StoredRow => ({
  id: randomUUID(),
  row: r.row,
  amount: r.amount.toFixed(),
  currency: r.currency,
  description: r.description,
  email: r.email,
  externalId: r.externalId,
  redirectUrl: r.redirectUrl,
  language: r.language,
});

/** The rows' e-mail languages by invoice id (rows without one are left out: the merchant's default). */
const languagesOf = (rows: StoredRow[]) => new Map(rows.flatMap((r) => (r.language ? [[r.id, r.language] as const] : [])));

/**
 * Writes the invoices of some rows in one set-based statement. A row whose id already exists
 * was written by an earlier run (a retried job): done. A row whose externalId another
 * invoice took meanwhile (a concurrent batch; the unique index decides) becomes a row error.
 * A row whose drawn number was taken draws again.
 */
async function writeRows(deps: BatchDeps, tx: InvoicingQueries, owner: Owner, batchId: string, rows: StoredRow[], now: Date, qrLater: boolean): Promise<RowError[]> {
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
          qrLater,
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
    const done = await existingInvoiceIds(tx, missing.map((s) => s.r.id));
    const ids = missing.filter((s) => !done.has(s.r.id) && s.r.externalId).map((s) => s.r.externalId!);
    const taken = await takenExternalIds(tx, owner, ids);
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
 * Marks the batch completed (once: conditional on `processing`), with its e-mails queued when
 * asked for: a row per invoice with an address, and one job that sends them. Says whether it
 * queued any.
 */
async function completeBatch(tx: InvoicingQueries, batchId: string, languages: ReadonlyMap<string, BrandLanguage>, now: Date): Promise<boolean> {
  const done = await markBatchCompleted(tx, batchId, await countBatchInvoices(tx, batchId), now);
  if (!done?.sendEmails) return false;
  const recipients = await batchRecipients(tx, batchId);
  if (recipients.length === 0) return false;
  if ((await queueBatchEmails(tx, batchId, recipients.map((r) => ({ ...r, language: languages.get(r.id) ?? null })), now)) === 0) return false;
  await writeOutbox(tx, outboxMessage('batchEmails', `batch-emails-${batchId}`, { batchId }));
  return true;
}

/**
 * The QR images of a batch written by the worker (drawBatchQrCodes) once its invoices are
 * written: at once when it sends no e-mail, otherwise after its e-mail job's pass (the e-mail
 * worker calls it), so the images' CPU does not hold back the payment links on their way to the
 * customers. Both are queue jobs: one stopped before drawing runs again and draws what is missing.
 */
export const drawQrCodesOf = (deps: Pick<InvoicingDeps, 'db'>, batchId: string) => drawBatchQrCodes(deps.db, batchId);

/**
 * POST /api/v1/batch/invoices. Every row is checked first; a file without one valid row is
 * refused (422) with nothing written. Up to BATCH_INLINE_ROWS valid rows are written now, in
 * one transaction with the batch; a larger batch is stored with its rows (their invoice ids
 * drawn already, so the answer can name them) and written by the queue worker, its status
 * `processing` until done.
 */
export async function createBatch(deps: BatchDeps, owner: Owner, input: BatchInput): Promise<BatchResult> {
  const enabled = await enabledCurrencies(deps.db, owner.merchantId);
  // A row the mode's provider would refuse (a live acquirer takes rubles only) is that row's
  // error, found here with the others, rather than a refusal of the whole batch at its first such row.
  const provider = providerFor(deps, owner);
  const modeTakes = provider.currencies && {
    currencies: provider.currencies,
    why: `${owner.isTest ? 'test' : 'live'} mode takes ${provider.currencies.join(', ')} only (the payment provider, ${provider.name}, collects no other currency)`,
  };
  const parsed = await parseBatchCsv(input.csv.toString('utf8'), input, enabled, (ids) => takenExternalIds(deps.db, owner, ids), modeTakes);
  const batchId = randomUUID();
  const rows = parsed.valid.map(stored);
  const now = deps.clock.now();
  const inline = rows.length <= deps.config.BATCH_INLINE_ROWS;
  const errors = [...parsed.errors];
  await deps.db.$transaction(async (tx) => {
    await insertBatch(tx, {
      id: batchId,
      merchantId: owner.merchantId,
      isTest: owner.isTest,
      total: parsed.total,
      valid: rows.length,
      failed: parsed.errors.length,
      sendEmails: input.sendEmails,
      errors: parsed.errors,
      pendingRows: inline ? null : rows,
      createdAt: now,
    });
    if (inline) {
      // Written in the request: drawn now, as a single create's QR (a request is never resumed to draw them later).
      const clashes = await writeRows(deps, tx, owner, batchId, rows, now, false);
      await recordBatchClashes(tx, batchId, clashes);
      errors.push(...clashes);
      await completeBatch(tx, batchId, languagesOf(rows), now);
    } else {
      await writeOutbox(tx, outboxMessage('batchInvoices', `batch-${batchId}`, { batchId }));
    }
  });
  deps.kickOutbox();
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
export async function processBatch(deps: BatchDeps, batchId: string): Promise<void> {
  const batch = await batchForWork(deps.db, batchId);
  if (!batch) return;
  // Completed by an earlier run of this job that stopped before drawing its QR images: draw what is missing.
  if (batch.status !== 'processing') return void (await drawQrCodesOf(deps, batchId));
  const owner: Owner = { merchantId: batch.merchantId, isTest: batch.isTest };
  const rows = (batch.pendingRows as StoredRow[] | null) ?? [];
  for (let i = 0; i < rows.length; i += CHUNK_ROWS) {
    await deps.db.$transaction(async (tx) => {
      const clashes = await writeRows(deps, tx, owner, batchId, rows.slice(i, i + CHUNK_ROWS), deps.clock.now(), true);
      await recordBatchClashes(tx, batchId, clashes);
      await setBatchCreated(tx, batchId, await countBatchInvoices(tx, batchId));
    });
  }
  // The rows are read in the run that completes the batch (completing clears them, in the same transaction).
  const mailing = await deps.db.$transaction((tx) => completeBatch(tx, batchId, languagesOf(rows), deps.clock.now()));
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
export async function batchSummary(deps: BatchDeps, owner: Owner, batchId: string): Promise<BatchSummary> {
  const b = await ownedBatch(deps.db, owner, batchId);
  if (!b) throw new ApiError('NOT_FOUND', `Batch ${batchId} not found`);
  const [paid, e] = await Promise.all([batchPaidTotals(deps.db, batchId), batchEmailCounts(deps.db, batchId)]);
  const counts = { sent: e.sent, failed: e.failed, pending: e.pending };
  const emails =
    counts.sent + counts.failed + counts.pending === 0
      ? null
      : { ...counts, outcome: emailOutcome(counts), retrying: e.retrying === true, lastError: e.lastError };
  return { batchId, status: b.status, total: b.total, created: b.created, failed: b.failed, paidCount: paid.paid_count, totalVolume: paid.volume, createdAt: b.createdAt, emails };
}

/** Batches still `processing` (their job may have been lost with Redis): the reconciler re-adds their jobs. */
export async function openBatches(deps: BatchDeps): Promise<string[]> {
  return processingBatchIds(deps.db);
}
