/**
 * Why a receipt was rejected, as a code kept beside the merchant's text (`rejection_reason`,
 * English, with the figures the check read): the hosted page words each one for the payer in
 * their language (channels/pay-page/i18n.ts), with the amount and date read off the receipt.
 */
export const RECEIPT_REJECTIONS = ['UNREADABLE', 'NO_AMOUNT', 'NO_DATE', 'AMOUNT_MISMATCH', 'DATE_MISMATCH', 'DUPLICATE', 'NOT_PAYABLE'] as const;
export type ReceiptRejection = (typeof RECEIPT_REJECTIONS)[number];

/** A stored code, or null for a row rejected before codes were kept (or an unknown one). */
export const receiptRejectionOf = (code: string | null): ReceiptRejection | null =>
  (RECEIPT_REJECTIONS as readonly string[]).includes(code ?? '') ? (code as ReceiptRejection) : null;
