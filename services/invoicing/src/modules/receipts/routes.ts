import { Type } from '@sinclair/typebox';
import { ownerOf } from '@pay/auth';
import { paginationOf, type Api, type FileSpec } from '@pay/http';
import { OffsetPage } from '@pay/schemas';
import type { ReceiptsDeps } from '../../deps';
import { InvoiceParams } from '../invoices/schemas';
import { AMOUNT_TOLERANCE, DATE_SLACK_DAYS, MIN_OCR_CONFIDENCE } from './decision';
import { getReceipt, listReceipts, MAX_RECEIPTS_PER_INVOICE, receiptFile, uploadReceipt } from './receipts';
import { ListReceiptsQuery, ReceiptDetail, ReceiptListItem, ReceiptParams } from './schemas';
import { receiptFileName, receiptJson, receiptListItemJson } from './views';

const tags = ['Receipts'];

/** The one file field of a receipt upload, from the API or the hosted page. */
export function receiptFileSpec(maxBytes: number): FileSpec {
  return { required: true, maxBytes, types: ['image/png', 'image/jpeg', 'application/pdf'] };
}

export const CHECK_DOC =
  'The automatic check runs in a queue worker, usually within seconds: a PDF’s text layer is read (pdf.js; a scanned PDF without text is unreadable), ' +
  'an image is read by OCR (tesseract.js, Russian and English). From the text it takes the amount (the one labelled Сумма/Итого/Amount/Total, ' +
  'never a fee or balance), the date, the bank and the payment type. `confidence` is the OCR’s own (1 for a PDF text layer). ' +
  `APPROVED when the amount is within ${AMOUNT_TOLERANCE.toFixed(2)} RUB of the invoice’s and the date lies between the invoice’s creation date and ` +
  `its expiry (or today), in Moscow time, ±${DATE_SLACK_DAYS} day for time zones. REJECTED with \`rejectionReason\` otherwise, or when unreadable ` +
  `(OCR confidence below ${MIN_OCR_CONFIDENCE}, no amount nor date found). An APPROVED receipt of a \`receiptRequired\` PENDING invoice pays it ` +
  '(PAID, `paidAt`, customer totals, `invoice.paid`) in the same transaction; if the invoice cannot be paid (expired, cancelled, blocked customer, ' +
  'KYC missing) the receipt is REJECTED with that reason. Receipts of other invoices are checked and recorded and change no state.';

export function receiptRoutes(api: Api, deps: ReceiptsDeps): void {
  const url = deps.config.PUBLIC_URL;

  api.route({
    method: 'post',
    path: '/api/v2/invoices/:invoiceId/receipts',
    operationId: 'uploadReceipt',
    summary: 'Upload a payment receipt',
    description:
      'Multipart form with one file in `file`: PNG, JPEG or PDF, judged by its bytes (not its name or declared type), at most ' +
      `${deps.config.RECEIPT_MAX_BYTES} bytes (larger is refused with 413 while it streams in). The signature covers the multipart body as sent. ` +
      `Answers 201 with the receipt, PENDING. At most ${MAX_RECEIPTS_PER_INVOICE} receipts per invoice (422 INVALID_STATE after). ` +
      'With `Idempotency-Key`, a retry of the same bytes (multipart boundary included, as the signature covers them) answers the first receipt. ' +
      CHECK_DOC,
    tags,
    auth: 'signed',
    idempotent: true,
    params: InvoiceParams,
    upload: { files: { file: receiptFileSpec(deps.config.RECEIPT_MAX_BYTES) } },
    response: { status: 201, schema: Type.Object({ receipt: ReceiptDetail }) },
    errors: ['NOT_FOUND', 'INVALID_STATE'],
    handler: async ({ auth, params, files }) => {
      const receipt = await uploadReceipt(deps, { invoiceId: params.invoiceId, owner: ownerOf(auth), source: 'api' }, files.file!);
      return { status: 201, body: { receipt: receiptJson(receipt, url) } };
    },
  });

  api.route({
    method: 'get',
    path: '/api/v2/receipts',
    operationId: 'listReceipts',
    summary: 'List receipts',
    description: 'Newest first. `limit` default 50, at most 100; filters `status` and `invoiceId`. Items omit `verificationDetails`.',
    tags,
    auth: 'signed',
    query: ListReceiptsQuery,
    response: { status: 200, schema: OffsetPage(ReceiptListItem) },
    handler: async ({ auth, query }) => {
      const { rows, total } = await listReceipts(deps, ownerOf(auth), query);
      return { body: { data: rows.map((r) => receiptListItemJson(r, url)), pagination: paginationOf(total, query) } };
    },
  });

  api.route({
    method: 'get',
    path: '/api/v2/receipts/:receiptId',
    operationId: 'getReceipt',
    summary: 'Get a receipt',
    description: 'With `verificationDetails` (null fields while PENDING). ' + CHECK_DOC,
    tags,
    auth: 'signed',
    params: ReceiptParams,
    response: { status: 200, schema: Type.Object({ receipt: ReceiptDetail }) },
    errors: ['NOT_FOUND'],
    handler: async ({ auth, params }) => ({ body: { receipt: receiptJson(await getReceipt(deps, ownerOf(auth), params.receiptId), url) } }),
  });

  api.route({
    method: 'get',
    path: '/api/v2/receipts/:receiptId/file',
    operationId: 'downloadReceiptFile',
    summary: 'Download a receipt’s file (`imageUrl`)',
    description:
      'The uploaded bytes, to the merchant that owns the receipt only (signed like every v2 call). Sent as an attachment under the type sniffed ' +
      'at upload, with `X-Content-Type-Options: nosniff` and a sandboxing Content-Security-Policy: a browser saves it, never renders or runs it.',
    tags,
    auth: 'signed',
    params: ReceiptParams,
    response: { status: 200, schema: Type.Object({}), file: ['image/png', 'image/jpeg', 'application/pdf'], description: 'The file' },
    errors: ['NOT_FOUND'],
    handler: async ({ auth, params }) => {
      const { receipt, bytes } = await receiptFile(deps, ownerOf(auth), params.receiptId);
      return { file: { bytes, type: receipt.content_type, name: receiptFileName(receipt) } };
    },
  });
}
