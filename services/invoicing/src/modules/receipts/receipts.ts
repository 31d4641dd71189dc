import { createHash, randomUUID } from 'node:crypto';
import type { Owner } from '@pay/auth';
import type { UploadedFile } from '@pay/http';
import { outboxMessage, writeOutbox } from '@pay/queue';
import { ApiError } from '@pay/schemas';
import type { InvoicingDeps, ReceiptsDeps } from '../../deps';
import { lockInvoice, receiptTargetOf } from '../invoices/published';
import { inTransaction } from '../../transactions';
import { insertReceipt, receiptCountOf, selectLatestReceipt, selectReceipt, selectReceipts, type ReceiptFilter, type ReceiptRow } from './store';

/**
 * What the receipts module publishes of its store: whether an invoice has an APPROVED receipt
 * (the acquirer's confirmation asks it, modules/settlement/, before paying an invoice that
 * requires one: decisions.md §10).
 */
export { hasApprovedReceipt } from './store';

/** Receipts one invoice may collect: room for retries after rejections, not a file store for anyone holding the link. */
export const MAX_RECEIPTS_PER_INVOICE = 20;

export interface UploadTarget {
  invoiceId: string;
  /** The merchant (API); the hosted page passes none and may upload only while the invoice awaits its receipt. */
  owner?: Owner;
  source: 'api' | 'page';
}

/**
 * Stores the file, then in one transaction writes the PENDING receipt and its check job to
 * the outbox (so the check exists exactly when the receipt does), then wakes the relay.
 * The file goes first: a crash between leaves an unreferenced file, never a receipt without one;
 * an upload refused or failed after the file was stored deletes the file again.
 */
export async function uploadReceipt(deps: Pick<ReceiptsDeps, 'clock' | 'db' | 'kickOutbox' | 'logger' | 'receiptStorage'>, target: UploadTarget, file: UploadedFile): Promise<ReceiptRow> {
  const id = randomUUID();
  const now = deps.clock.now();
  const found = await receiptTargetOf(deps.db, target.invoiceId, target.owner);
  if (!found) throw new ApiError('NOT_FOUND', `Invoice ${target.invoiceId} not found`);
  // Refused before anything is stored; checked again under the lock below.
  if (target.source === 'page' && !canUploadFromPage(found, now)) throw pageRefusal();
  const key = `${found.merchant_id}/${id}`;
  await deps.receiptStorage.put(key, file.bytes, file.type);
  const receipt = await recordReceipt(deps, target, file, { id, key, now }).catch(async (err: unknown) => {
    await deps.receiptStorage.delete(key).catch((cleanup: unknown) => deps.logger.warn({ err: cleanup, key }, 'could not delete the file of a refused receipt upload'));
    throw err;
  });
  deps.kickOutbox();
  return receipt;
}

/**
 * The PENDING receipt and its check job, in one transaction under the invoice's lock. Returns
 * the receipt as written, read in that transaction: read after the commit, the check (its
 * relay polls too) may already have decided it, and the upload would answer that instead.
 */
async function recordReceipt(deps: Pick<ReceiptsDeps, 'db'>, target: UploadTarget, file: UploadedFile, r: { id: string; key: string; now: Date }): Promise<ReceiptRow> {
  const { id, key, now } = r;
  return inTransaction(deps.db, async (tx) => {
    // Under the invoice's lock, so concurrent uploads cannot pass the count together.
    const invoice = await lockInvoice(tx, target.invoiceId, target.owner);
    if (target.source === 'page' && !canUploadFromPage(invoice, now)) {
      throw pageRefusal();
    }
    if ((await receiptCountOf(tx, invoice.id)) >= MAX_RECEIPTS_PER_INVOICE) {
      throw new ApiError('INVALID_STATE', `Invoice ${invoice.id} already has ${MAX_RECEIPTS_PER_INVOICE} receipts, the most one invoice takes`);
    }
    await insertReceipt(tx, {
      id,
      invoice_id: invoice.id,
      merchant_id: invoice.merchant_id,
      is_test: invoice.is_test,
      storage_key: key,
      content_type: file.type,
      size_bytes: file.bytes.length,
      source: target.source,
      created_at: now,
      content_sha256: createHash('sha256').update(file.bytes).digest('hex'),
    });
    await writeOutbox(tx, outboxMessage('receiptChecks', id, { receiptId: id }));
    return (await selectReceipt(tx, target.owner ?? { merchantId: invoice.merchant_id, isTest: invoice.is_test }, id))!;
  });
}

const pageRefusal = () => new ApiError('INVALID_STATE', 'This invoice does not take a receipt now: it is not awaiting one, or it is no longer payable');

/** The hosted page takes a receipt for a receiptRequired invoice still payable (until it expires). */
export function canUploadFromPage(invoice: { receipt_required: boolean; status: string; expires_at: Date }, now: Date): boolean {
  return invoice.receipt_required && invoice.status === 'PENDING' && invoice.expires_at.getTime() > now.getTime();
}

export async function getReceipt(deps: Pick<InvoicingDeps, 'db'>, owner: Owner, id: string): Promise<ReceiptRow> {
  const receipt = await selectReceipt(deps.db, owner, id);
  if (!receipt) throw new ApiError('NOT_FOUND', `Receipt ${id} not found`);
  return receipt;
}

export function listReceipts(deps: Pick<InvoicingDeps, 'db'>, owner: Owner, q: ReceiptFilter) {
  return selectReceipts(deps.db, owner, q);
}

/** The stored file of a receipt, for its merchant. */
export async function receiptFile(deps: Pick<InvoicingDeps, 'db' | 'receiptStorage'>, owner: Owner, id: string) {
  const receipt = await getReceipt(deps, owner, id);
  return { receipt, bytes: await deps.receiptStorage.get(receipt.storage_key) };
}

export type { PageReceiptRow } from './store';

/** The newest receipt of an invoice, for the hosted page: its state and, when rejected, why. */
export function latestReceiptOf(deps: Pick<InvoicingDeps, 'db'>, invoiceId: string) {
  return selectLatestReceipt(deps.db, invoiceId);
}
