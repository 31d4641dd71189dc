import { toJsonNumber } from '@pay/money';
import type { ReceiptRow } from './store';

/** Where the merchant downloads a receipt's file (a signed GET of the v2 API). */
export const receiptFileUrl = (publicUrl: string, id: string) => `${publicUrl}/api/v2/receipts/${id}/file`;

const amountOrNull = (v: { toString(): string } | null) => (v === null ? null : toJsonNumber(v));

export function receiptListItemJson(r: ReceiptRow, publicUrl: string) {
  return {
    id: r.id,
    invoiceId: r.invoice_id,
    imageUrl: receiptFileUrl(publicUrl, r.id),
    status: r.status,
    verifiedAmount: amountOrNull(r.verified_amount),
    verifiedAt: r.verified_at?.toISOString() ?? null,
    createdAt: r.created_at.toISOString(),
  };
}

export function receiptJson(r: ReceiptRow, publicUrl: string) {
  return {
    ...receiptListItemJson(r, publicUrl),
    verificationDetails: {
      extractedAmount: amountOrNull(r.extracted_amount),
      extractedDate: r.extracted_date,
      confidence: r.confidence,
      bank: r.bank,
      paymentType: r.payment_type,
      ...(r.status === 'REJECTED' ? { rejectionReason: r.rejection_reason ?? 'Rejected' } : {}),
    },
  };
}

/** The file's download name: the receipt id and an extension from its sniffed type (never the uploader's name). */
export function receiptFileName(r: Pick<ReceiptRow, 'id' | 'content_type'>): string {
  const ext = { 'application/pdf': 'pdf', 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp' }[r.content_type] ?? 'bin';
  return `receipt-${r.id}.${ext}`;
}
