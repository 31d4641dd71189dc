import { money } from '@pay/money';
import type { InvoiceWithCustomer } from '../../modules/invoices/invoices';
import { isKycVerified } from '../../modules/invoices/views';
import type { Language } from '../../modules/kyc/schemas';
import { formatAmount, LOCALES } from '../../languages';
import type { PageBrand } from '@pay/accounts';
import type { PageReceiptRow } from '../../modules/receipts/receipts';
import { receiptRejectionOf, type ReceiptRejection } from '../../modules/receipts/rejections';

/**
 * What the payer is shown: `declined` when the last payment was declined and no fresh one is
 * open yet (the page offers to try again); `receipt_needed` when the acquirer has confirmed the
 * payment of a receiptRequired invoice, which counts once a receipt is approved too
 * (decisions.md §10: the invoice is still PENDING; the page asks for the receipt, not for
 * money); `review` while money awaits the merchant's decision on an unpaid invoice; a paid
 * invoice refunded in full or in part says so.
 */
export type PageState = (typeof PAGE_STATES)[number];
export const PAGE_STATES = ['pending', 'receipt_needed', 'declined', 'review', 'paid', 'partly_refunded', 'refunded', 'expired', 'cancelled'] as const;

/** The acquirer's side of the page: a decline behind the current payment, or one with no fresh payment yet; a review open. */
export interface PaymentNotices {
  /** An earlier payment of this invoice was declined. */
  declined: boolean;
  /** The latest payment was declined and no fresh one is open: the page offers "try again". */
  needsRetry: boolean;
  /** Money (or a receipt) awaits the merchant's decision. */
  underReview: boolean;
  /** The acquirer confirmed a payment of the invoice (not one sent to a review). */
  paymentReceived: boolean;
}
export const NO_NOTICES: PaymentNotices = { declined: false, needsRetry: false, underReview: false, paymentReceived: false };

/** Everything the hosted page shows, assembled from the invoice in one place; the view only renders it. */
export interface PaymentPageModel {
  id: string;
  /** Who is asking for the money: the merchant's name, logo and colour (`merchantBrand`). */
  brand: PageBrand;
  invoiceNumber: string;
  /** The amount in the invoice's own currency for the page's language (`$49.90`, `1 490,90 ₽`), exactly, cents always shown. */
  amountText: string;
  /** The page's language (the switch's `?lang=`, else Accept-Language). */
  language: Language;
  /** `?lang=xx` when the payer chose it with the switch, else empty: the page's forms and links keep it. */
  langQuery: string;
  description: string | null;
  state: PageState;
  method: 'sbp' | 'card';
  isTest: boolean;
  qrCode: string | null;
  qrPayload: string | null;
  expiresAt: string;
  /** Milliseconds left by the server's clock; the countdown script counts down from it, so the payer's clock does not matter. */
  remainingMs: number;
  paidAt: string | null;
  /** Refunded so far, as text in the invoice's currency (partly refunded invoices). */
  refundedText: string | null;
  /** An earlier payment was declined: the page says so above the fresh QR or form. */
  declinedBefore: boolean;
  /** KYC is required and not done: the page does not offer to pay. */
  needsKyc: boolean;
  /** The payment counts once a receipt is approved: the page takes one. */
  receiptRequired: boolean;
  /** The newest receipt uploaded for the invoice, if any. */
  receipt: PageReceipt | null;
  /** v1 `redirectUrl`: the paid page links back to the merchant (and goes there after a few seconds). */
  redirectUrl: string | null;
  /**
   * A card invoice of an acquirer with its own card form (not the sandbox): the page sends the
   * payer there (`originalPaymentUrl`) instead of showing a card form; null otherwise.
   */
  acquirerCardUrl: string | null;
}

export interface PageReceipt {
  state: 'pending' | 'approved' | 'rejected';
  /** Why it was rejected, for the payer to act on (upload a clearer or the right one); null when the row has no code. */
  rejection: ReceiptRejection | null;
  /** What the check read off the receipt, formatted for the page's language (a mismatch names them). */
  receiptAmount: string | null;
  receiptDate: string | null;
}

/** Where the payer goes at once after paying: the v1 `successUrl`, when the merchant gave one. */
export function successRedirectOf(i: Pick<InvoiceWithCustomer, 'status' | 'success_url'>): string | null {
  return i.status === 'PAID' ? i.success_url : null;
}

/** A calendar day (`YYYY-MM-DD`) as the language writes it: `27 ноября 2026 г.`, `November 27, 2026`. */
export function formatDay(day: string, language: Language): string {
  return new Intl.DateTimeFormat(LOCALES[language], { dateStyle: 'long', timeZone: 'UTC' }).format(new Date(`${day}T00:00:00Z`));
}

export function paymentPageModel(
  i: InvoiceWithCustomer,
  now: Date,
  receipt: PageReceiptRow | null,
  language: { language: Language; langQuery: string },
  notices: PaymentNotices,
  brand: PageBrand,
): PaymentPageModel {
  const remainingMs = Math.max(0, i.expires_at.getTime() - now.getTime());
  const refunded = money(i.refunded_amount);
  const paidState: PageState = refunded.gte(money(i.amount)) ? 'refunded' : refunded.gt(0) ? 'partly_refunded' : 'paid';
  // Past expiresAt is expired for the payer at once, even before the expiry loop marks it.
  const state: PageState =
    i.status === 'PAID'
      ? paidState
      : i.status === 'CANCELLED'
        ? 'cancelled'
        : notices.underReview
          ? 'review'
          : i.status === 'EXPIRED' || remainingMs === 0
            ? 'expired'
            : notices.needsRetry
              ? 'declined'
              : i.receipt_required && notices.paymentReceived
                ? 'receipt_needed'
                : 'pending';
  return {
    id: i.id,
    brand,
    invoiceNumber: i.invoice_number,
    amountText: formatAmount(i.amount, i.currency, language.language),
    ...language,
    description: i.description,
    state,
    method: i.payment_method,
    isTest: i.is_test,
    qrCode: i.qr_code,
    qrPayload: i.qr_payload,
    expiresAt: i.expires_at.toISOString(),
    remainingMs,
    paidAt: i.paid_at?.toISOString() ?? null,
    refundedText: refunded.gt(0) ? formatAmount(refunded, i.currency, language.language) : null,
    declinedBefore: notices.declined,
    needsKyc: i.kyc_required && !isKycVerified(i),
    receiptRequired: i.receipt_required,
    receipt: receipt
      ? {
          state: receipt.status.toLowerCase() as PageReceipt['state'],
          rejection: receiptRejectionOf(receipt.rejection_code),
          receiptAmount: receipt.extracted_amount === null ? null : formatAmount(receipt.extracted_amount, i.currency, language.language),
          receiptDate: receipt.extracted_date === null ? null : formatDay(receipt.extracted_date, language.language),
        }
      : null,
    redirectUrl: i.redirect_url,
    acquirerCardUrl: i.payment_method === 'card' && i.provider !== 'sandbox' ? i.original_payment_url : null,
  };
}
