import { Type } from '@sinclair/typebox';
import { Amount, OffsetQuery, StringEnum, Timestamp, Uuid } from '@pay/schemas';

export const RECEIPT_STATUSES = ['PENDING', 'APPROVED', 'REJECTED'] as const;
export const ReceiptStatusName = StringEnum(RECEIPT_STATUSES, { title: 'ReceiptStatus' });

/** What the list shows: no `verificationDetails`. */
export const ReceiptListItem = Type.Object(
  {
    id: Uuid,
    invoiceId: Uuid,
    imageUrl: Type.String({ description: 'The uploaded file (image or PDF), served to the owning merchant only: a signed GET, sent as an attachment' }),
    status: ReceiptStatusName,
    verifiedAmount: Type.Union([Amount, Type.Null()], { description: 'The approved amount, rubles; null unless APPROVED' }),
    verifiedAt: Type.Union([Timestamp, Type.Null()], { description: 'When the automatic check decided (APPROVED or REJECTED); null while PENDING' }),
    createdAt: Timestamp,
  },
  { title: 'ReceiptListItem', additionalProperties: false },
);

export const VerificationDetails = Type.Object(
  {
    extractedAmount: Type.Union([Amount, Type.Null()], { description: 'The amount read from the receipt, rubles; null when none was found (or still PENDING)' }),
    extractedDate: Type.Union([Type.String({ format: 'date' }), Type.Null()], { description: 'The payment date read from the receipt, `YYYY-MM-DD`' }),
    confidence: Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()], {
      description: 'Images: the OCR’s own mean confidence (tesseract), 0 to 1. PDFs: 1, since their text layer is read exactly. Null while PENDING',
    }),
    bank: Type.Union([Type.String(), Type.Null()], { description: 'The bank named on the receipt (e.g. `Sberbank`, `T-Bank`), null when none is recognised' }),
    paymentType: Type.Union([StringEnum(['sbp', 'card', 'bank_transfer', 'transfer'] as const), Type.Null()], {
      description: '`sbp` (SBP), `card` (card to card), `bank_transfer` (by bank details), `transfer` (a transfer of another kind); null when not recognised',
    }),
    rejectionReason: Type.Optional(Type.String({ description: 'Only when REJECTED: the mismatch, or why the file is unreadable' })),
  },
  { title: 'ReceiptVerification', additionalProperties: false },
);

export const ReceiptDetail = Type.Object({ ...ReceiptListItem.properties, verificationDetails: VerificationDetails }, { title: 'Receipt', additionalProperties: false });

export const ListReceiptsQuery = Type.Object(
  { ...OffsetQuery(100), status: Type.Optional(ReceiptStatusName), invoiceId: Type.Optional(Uuid) },
  { additionalProperties: false },
);
export const ReceiptParams = Type.Object({ receiptId: Uuid });
