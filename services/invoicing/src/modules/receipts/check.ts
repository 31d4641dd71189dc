import { ApiError } from '@pay/schemas';
import type { InvoicingDeps } from '../../deps';
import { payLockedInvoice } from '../invoices/payment';
import { confirmedPaymentOf, needsReceiptAndConfirmation } from '../invoices/proof';
import { lockInvoice } from '../invoices/published';
import { paymentMethodOf } from '../invoices/views';
import { inTransaction } from '../../transactions';
import { openReview } from '../reviews/open';
import { decideReceipt, type Decision } from './decision';
import { extractReceiptFields } from './extract';
import type { ReceiptReaders } from './readers';
import { receiptInCheck, receiptToCheck, recordReceiptCheck, uploadedEarlierForAnotherInvoice, type ReceiptRow } from './store';

export type CheckOutcome = 'APPROVED' | 'REJECTED' | 'already checked';

/**
 * The automatic check of one receipt (run by the queue worker): read the file (PDF text or
 * OCR), extract amount, date, bank and payment type, decide, then in one transaction under
 * the invoice's lock record the outcome and, for an APPROVED receipt of a receiptRequired
 * invoice still PENDING, pay the invoice through `payLockedInvoice` (paidAt, customer
 * totals, invoice.paid). A receipt that matches but cannot pay its
 * invoice (expired, cancelled, blocked customer, KYC missing) is REJECTED with the reason,
 * since for such an invoice the receipt is the payment. Other invoices change no state.
 * That is the sandbox's rule (test mode, no acquirer takes money). An invoice an acquirer
 * collects is never paid by a receipt alone (decisions.md §10, invoices/proof.ts): an approved
 * receipt pays it only when the acquirer has already confirmed its payment (how it was paid is
 * the acquirer's word); before that it opens a `receipt_only` review (invoice.payment_review)
 * for the merchant, who may accept it, and the acquirer's confirmation then pays it.
 * A file whose bytes were uploaded earlier for another invoice is REJECTED.
 * Safe to run twice: only a PENDING receipt is decided.
 */
export async function checkReceipt(deps: Pick<InvoicingDeps, 'db' | 'clock' | 'receiptStorage' | 'logger'>, readers: ReceiptReaders, receiptId: string): Promise<CheckOutcome> {
  const receipt = await receiptToCheck(deps.db, receiptId);
  if (!receipt || receipt.status !== 'PENDING') return 'already checked';
  const bytes = await deps.receiptStorage.get(receipt.storage_key);
  const started = Date.now();
  const reading = await readers.read(bytes, receipt.content_type);
  const fields = extractReceiptFields(reading.text);
  deps.logger.debug({ receiptId, ms: Date.now() - started, confidence: reading.confidence }, 'receipt read');

  return inTransaction(deps.db, async (tx) => {
    const current = await receiptInCheck(tx, receiptId);
    if (!current || current.status !== 'PENDING') return 'already checked';
    const invoice = await lockInvoice(tx, current.invoice_id);
    let now = deps.clock.now();
    let decision: Decision = decideReceipt(reading, fields, invoice, now);
    if (decision.status === 'APPROVED' && (await uploadedEarlierForAnotherInvoice(tx, receiptId))) {
      decision = { status: 'REJECTED', rejectionReason: 'This file has already been uploaded for another invoice: one receipt proves one payment', rejectionCode: 'DUPLICATE' };
    }
    const confirmed = needsReceiptAndConfirmation(invoice) && invoice.status === 'PENDING' ? await confirmedPaymentOf(tx, invoice.id) : null;
    if (decision.status === 'APPROVED' && invoice.status === 'PENDING' && needsReceiptAndConfirmation(invoice) && !confirmed) {
      // Live money is the acquirer's to confirm: a receipt (anyone can type one) only asks the merchant to look.
      await openReview(tx, deps.clock, invoice, {
        reason: 'receipt_only',
        amount: fields.amount!.toFixed(2),
        takenAt: current.created_at,
        detail: `A receipt for ${fields.amount!.toFixed(2)} dated ${fields.date} was approved, but the acquirer has not confirmed any payment`,
        paymentKey: null,
        receiptId,
      });
    } else if (decision.status === 'APPROVED' && invoice.receipt_required && invoice.status !== 'PAID') {
      try {
        const paid = confirmed
          ? // The acquirer's word on how it was paid (recorded with its confirmation), not the receipt's; confirmed in time, as the acquirer's own confirmation would be.
            await payLockedInvoice(tx, deps, invoice, { method: paymentMethodOf(invoice), payerBank: invoice.payer_bank, sbpTransactionId: invoice.sbp_transaction_id }, { confirmedInTime: true })
          : await payLockedInvoice(tx, deps, invoice, {
              method: fields.paymentType === 'card' || fields.paymentType === 'sbp' ? fields.paymentType : invoice.payment_method,
              payerBank: fields.bank,
              sbpTransactionId: null,
            });
        // One moment for both: the receipt was verified when the invoice was paid.
        now = paid.paid_at ?? now;
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        decision = { status: 'REJECTED', rejectionReason: `The receipt matches, but the invoice cannot be paid: ${err.message}`, rejectionCode: 'NOT_PAYABLE' };
      }
    }
    const approved = decision.status === 'APPROVED';
    await recordReceiptCheck(tx, receiptId, {
      status: decision.status,
      extracted_amount: fields.amount?.toFixed(2) ?? null,
      extracted_date: fields.date,
      confidence: reading.confidence,
      bank: fields.bank,
      payment_type: fields.paymentType,
      rejection_reason: decision.rejectionReason,
      rejection_code: decision.rejectionCode,
      verified_amount: approved ? fields.amount!.toFixed(2) : null,
      verified_at: now,
    });
    return decision.status;
  });
}
