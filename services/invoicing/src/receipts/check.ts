import { ApiError } from '@pay/schemas';
import type { InvoicingDeps } from '../deps';
import { payLockedInvoice } from '../invoices/payment';
import { lockInvoice } from '../invoices/store';
import { inTransaction } from '../transactions';
import { decideReceipt, type Decision } from './decision';
import { extractReceiptFields } from './extract';
import type { ReceiptReaders } from './readers';
import type { ReceiptRow } from './store';

export type CheckOutcome = 'APPROVED' | 'REJECTED' | 'already checked';

/**
 * The automatic check of one receipt (run by the queue worker): read the file (PDF text or
 * OCR), extract amount, date, bank and payment type, decide, then in one transaction under
 * the invoice's lock record the outcome and, for an APPROVED receipt of a receiptRequired
 * invoice still PENDING, pay the invoice through `payLockedInvoice` (paidAt, customer
 * totals, invoice.paid) — decisions.md §10. A receipt that matches but cannot pay its
 * invoice (expired, cancelled, blocked customer, KYC missing) is REJECTED with the reason,
 * since for such an invoice the receipt is the payment. Other invoices change no state.
 * Safe to run twice: only a PENDING receipt is decided.
 */
export async function checkReceipt(deps: Pick<InvoicingDeps, 'db' | 'sql' | 'clock' | 'receiptStorage' | 'logger'>, readers: ReceiptReaders, receiptId: string): Promise<CheckOutcome> {
  const { rows } = await deps.sql.query<Pick<ReceiptRow, 'id' | 'storage_key' | 'content_type' | 'status'>>(`SELECT id, storage_key, content_type, status::text AS status FROM invoicing.receipts WHERE id = $1`, [receiptId]);
  const receipt = rows[0];
  if (!receipt || receipt.status !== 'PENDING') return 'already checked';
  const bytes = await deps.receiptStorage.get(receipt.storage_key);
  const started = Date.now();
  const reading = await readers.read(bytes, receipt.content_type);
  const fields = extractReceiptFields(reading.text);
  deps.logger.debug({ receiptId, ms: Date.now() - started, confidence: reading.confidence }, 'receipt read');

  return inTransaction(deps.db, async (tx) => {
    const [current] = await tx.$queryRawUnsafe<{ invoice_id: string; status: string }[]>(
      'SELECT invoice_id, status::text AS status FROM invoicing.receipts WHERE id = $1::uuid',
      receiptId,
    );
    if (!current || current.status !== 'PENDING') return 'already checked';
    const invoice = await lockInvoice(tx, current.invoice_id);
    let now = deps.clock.now();
    let decision: Decision = decideReceipt(reading, fields, invoice, now);
    if (decision.status === 'APPROVED' && invoice.receipt_required && invoice.status !== 'PAID') {
      try {
        const method = fields.paymentType === 'card' || fields.paymentType === 'sbp' ? fields.paymentType : invoice.payment_method;
        const paid = await payLockedInvoice(tx, deps, invoice, { method, payerBank: fields.bank, sbpTransactionId: null });
        // One moment for both: the receipt was verified when the invoice was paid.
        now = paid.paid_at ?? now;
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        decision = { status: 'REJECTED', rejectionReason: `The receipt matches, but the invoice cannot be paid: ${err.message}` };
      }
    }
    const approved = decision.status === 'APPROVED';
    await tx.$executeRawUnsafe(
      `UPDATE invoicing.receipts
          SET status = $2::invoicing."ReceiptStatus", extracted_amount = $3::numeric, extracted_date = $4::date, confidence = $5,
              bank = $6, payment_type = $7, rejection_reason = $8, verified_amount = $9::numeric, verified_at = $10
        WHERE id = $1::uuid`,
      receiptId,
      decision.status,
      fields.amount?.toFixed(2) ?? null,
      fields.date,
      reading.confidence,
      fields.bank,
      fields.paymentType,
      decision.rejectionReason,
      approved ? fields.amount!.toFixed(2) : null,
      now,
    );
    return decision.status;
  });
}
