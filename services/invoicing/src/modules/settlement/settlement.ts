import { money } from '@pay/money';
import { ApiError } from '@pay/schemas';
import type { InvoicingDeps } from '../../deps';
import type { InvoiceSettlement } from '../../payments/settlement';
import { inTransaction } from '../../transactions';
import { emitInvoiceEvent } from '../invoices/events';
import { payLockedInvoice } from '../invoices/payment';
import { needsReceiptAndConfirmation } from '../invoices/proof';
import { existingInvoiceIds, lockInvoice, recordConfirmedPayment, selectInvoiceById, setPaymentTarget, type InvoiceRow } from '../invoices/published';
import { hasApprovedReceipt } from '../receipts/receipts';
import { recordRefundMadeElsewhere } from '../refunds/refunds';
import { closeReceiptReviews, openReview, type ReviewReason } from '../reviews/open';

/**
 * What an acquirer's word does to an invoice: the payments layer's port (payments/settlement.ts)
 * implemented on the modules it may not import (invoices, reviews, refunds, receipts), so the
 * decisions about an invoice's money sit above both sides and the acquirer only reports.
 * compose.ts builds it once and hands it to the acquirers as `deps.settlement`.
 */
export function invoiceSettlement(deps: Pick<InvoicingDeps, 'db' | 'clock'>): InvoiceSettlement {
  return {
    async invoiceOf(on, invoiceId) {
      const invoice = await selectInvoiceById(on, invoiceId);
      if (!invoice) return null;
      const { status, expires_at: expiresAt, currency, description, customer_email: customerEmail, customer_phone: customerPhone } = invoice;
      return { status, expiresAt, amount: money(invoice.amount), currency, description, customerEmail, customerPhone };
    },

    existingIds: existingInvoiceIds,

    setPaymentTarget,

    // The row read under the lock is the one handed on (as the port's LockedInvoice): the calls
    // below get it back, typed as the row it is, so none of them reads or locks it again.
    locked: (invoiceId, work) => inTransaction(deps.db, async (tx) => work(tx, await lockInvoice(tx, invoiceId))),

    /**
     * The first CONFIRMED of a payment decides what its money does, under the invoice's lock: it
     * pays a PENDING invoice of the same amount (even past expiresAt: the acquirer took it before
     * its due date, which is expiresAt), closing receipt-only reviews, unless the invoice requires
     * a receipt and none is approved yet (invoices/proof.ts): then the payment is recorded on the
     * invoice, still PENDING, and the receipt's approval pays it; anything else (another amount,
     * an invoice already paid, cancelled, expired, or refusing the payer) opens a review with
     * invoice.payment_review, never a silent "already paid".
     */
    async confirmed(tx, invoice: InvoiceRow, c) {
      const [taken, asked, currency] = [c.taken.toFixed(2), c.asked.toFixed(2), invoice.currency];
      const review = async (reason: ReviewReason, detail: string) => {
        await openReview(tx, deps.clock, invoice, { reason, amount: taken, takenAt: c.takenAt, detail, paymentKey: c.paymentKey, receiptId: null });
        return { outcome: 'review', reason, detail } as const;
      };
      if (!c.taken.eq(c.asked)) return review('amount_mismatch', `${c.acquirer} confirmed ${taken} ${currency}; the invoice asked ${asked} ${currency}`);
      if (invoice.status === 'PAID') return review('duplicate_payment', `The invoice was already paid (${invoice.paid_at?.toISOString() ?? ''}); ${c.acquirer} took ${taken} ${currency} again`);
      if (invoice.status === 'CANCELLED') return review('paid_after_cancel', `${c.acquirer} took ${taken} ${currency} after the invoice was cancelled`);
      if (invoice.status === 'EXPIRED') return review('paid_after_expiry', `${c.acquirer} took ${taken} ${currency} after the invoice expired`);
      if (needsReceiptAndConfirmation(invoice) && !(await hasApprovedReceipt(tx, invoice.id))) {
        // §10: the money is in, but this invoice counts once a receipt is approved too; shown meanwhile, paid by that approval.
        await recordConfirmedPayment(tx, invoice.id, c.payment);
        return { outcome: 'awaiting_receipt' };
      }
      try {
        await payLockedInvoice(tx, deps, invoice, c.payment, { confirmedInTime: true });
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        return review('invoice_refused', `${c.acquirer} took ${taken} ${currency} but the invoice refused the payment: ${err.message}`);
      }
      await closeReceiptReviews(tx, invoice.id, c.takenAt);
      return { outcome: 'paid' };
    },

    async declined(tx, invoice: InvoiceRow, attempt) {
      if (invoice.status !== 'PENDING') return false;
      await emitInvoiceEvent(tx, deps.clock, invoice, 'invoice.payment_failed', { attempt });
      return true;
    },

    async refundedElsewhere(tx, invoice: InvoiceRow, amount, reason) {
      const refund = await recordRefundMadeElsewhere(tx, deps, invoice, amount, reason);
      return refund?.id ?? null;
    },
  };
}
