import { ownerOf } from '@pay/auth';
import { type Api } from '@pay/http';
import { toJsonNumber } from '@pay/money';
import type { BatchDeps } from '../../deps';
import { paymentLinkOf } from '../invoices/views';
import { assertKnownIdShape } from '../invoices/v1/invoices';
import { batchSummary, createBatch } from './batches';
import { COLUMNS, MAX_FILE_BYTES, MAX_ROWS } from './csv';
import { batchInvoicesCsv } from './export';
import { MAX_EMAIL_ATTEMPTS } from './emails';
import { Type } from '@sinclair/typebox';
import { BatchForm, BatchParams, BatchResult, BatchSummary } from './schemas';

const tags = ['Batch'];

export function batchRoutes(api: Api, deps: BatchDeps): void {
  const url = deps.config.PUBLIC_URL;

  api.route({
    method: 'post',
    path: '/api/v1/batch/invoices',
    operationId: 'v1CreateBatch',
    summary: 'Create invoices from a CSV file',
    description:
      `Multipart form: \`file\` is a CSV in UTF-8 (a BOM is fine), comma separated, a header row naming its columns (${COLUMNS.join(', ')}; ` +
      '`amount` required, `currency` unless `defaultCurrency` is given; a column named twice is a 400), at most ' +
      `${MAX_ROWS} data rows (400 beyond) and ${MAX_FILE_BYTES / 1024 / 1024} MB (413, stopped while it streams in). A file that is not CSV text, or no file, is a 400. ` +
      'Every row is checked: amount (positive, at most 2 decimals), currency (USD, EUR, RUB, KZT, enabled for the merchant), e-mail, redirectUrl ' +
      '(http or https), externalId (once in the file and never used by an earlier invoice of the merchant in this mode). Valid rows become ' +
      'SBP invoices valid for 24 h; failed rows are listed in `errors` with their row number, externalId and the reasons. Rows are numbered ' +
      'as they stand in the file: row 1 is the row after the header, and blank rows (an empty line, or only empty cells) are skipped but ' +
      'keep their number, so row N is the spreadsheet’s row N + 1; `total` counts the rows read (not the blank ones) and equals ' +
      '`created` + `failed`. No valid row at all: 422 `NO_VALID_ROWS`, nothing created, each failed row (the first 100) in ' +
      '`error.details` as `{ field: "row N", message, row, externalId }`. Cells are data: one starting with =, +, - or @ ' +
      'is stored as the text it is. Up to 100 valid rows are written before the answer (batch `completed`); a larger batch is written by a ' +
      'worker: the answer already lists its invoices (ids drawn), and GET /api/v1/batch/invoices/{batchId} shows it `processing` with ' +
      '`created` growing, then `completed`. `sendEmails=true` e-mails each payment link to the row’s `email` once the batch is written, in ' +
      'the row’s `language` (optional: `ru`, `en` or `kk`, and `kz` as Kazakh as v1 spells it; another value is that row’s error), else the ' +
      'merchant’s default language (`defaultLanguage` of its brand); a ' +
      'failed send is recorded on its row and retried with backoff. The same file and fields sent again with the same `Idempotency-Key` ' +
      'answer the first result and create nothing.',
    tags,
    auth: 'key',
    idempotent: true,
    upload: { files: { file: { required: true, maxBytes: MAX_FILE_BYTES, types: ['text/csv'] } } },
    body: BatchForm,
    response: { status: 201, schema: BatchResult },
    errors: ['PAYLOAD_TOO_LARGE', 'NO_VALID_ROWS'],
    handler: async ({ auth, body, files }) => {
      const result = await createBatch(deps, ownerOf(auth), {
        csv: files.file!.bytes,
        sendEmails: body.sendEmails ?? false,
        defaultCurrency: body.defaultCurrency,
        defaultRedirectUrl: body.defaultRedirectUrl,
      });
      return {
        status: 201,
        body: {
          ...result,
          invoices: result.invoices.map((i) => ({ id: i.id, amount: toJsonNumber(i.amount), currency: i.currency, externalId: i.externalId, paymentUrl: paymentLinkOf(url, i.id), status: 'pending' })),
        },
      };
    },
  });

  api.route({
    method: 'get',
    path: '/api/v1/batch/invoices/:batchId',
    operationId: 'v1GetBatch',
    summary: 'A batch’s progress and results',
    description:
      '`status` is `processing` while a large batch is being written (`created` counts the invoices written so far), then `completed`. ' +
      '`paidCount` and `totalVolume` (the paid invoices’ amounts added up) are live. `emails` counts the payment-link e-mails (sendEmails) ' +
      'by state: `completed` means the invoices are written, not that their e-mails arrived; `outcome` `all_failed` or `some_failed` says ' +
      `customers did not get their links (failed e-mails are retried with backoff up to ${MAX_EMAIL_ATTEMPTS} attempts while \`retrying\`): ` +
      'send them the `paymentUrl` of the export’s rows whose emailStatus is failed another way, and ask the operator to check the SMTP server.',
    tags,
    auth: 'key',
    params: BatchParams,
    response: { status: 200, schema: BatchSummary },
    errors: ['NOT_FOUND'],
    handler: async ({ auth, params }) => {
      assertKnownIdShape(params.batchId, 'Batch');
      const s = await batchSummary(deps, ownerOf(auth), params.batchId);
      return { body: { ...s, totalVolume: toJsonNumber(s.totalVolume), createdAt: s.createdAt.toISOString() } };
    },
  });

  api.route({
    method: 'get',
    path: '/api/v1/batch/invoices/:batchId/export',
    operationId: 'v1ExportBatch',
    summary: 'A batch’s invoices as CSV',
    description:
      'Columns invoiceId, externalId, amount, currency, status, description, email, paymentUrl, createdAt, paidAt, emailStatus, emailAttempts, ' +
      'emailError; one line per invoice, state as of now. The last three are the row’s payment-link e-mail (sendEmails): emailStatus is ' +
      `pending (not tried yet), sent or failed; a failed e-mail is retried with backoff up to ${MAX_EMAIL_ATTEMPTS} attempts in all and then stays failed; ` +
      'emailAttempts counts the attempts made; emailError is the last SMTP error of a failed e-mail (empty once sent). All three are empty ' +
      'for a row without an e-mail address or a batch uploaded with sendEmails=false. The headers X-Emails-Sent, X-Emails-Failed and ' +
      'X-Emails-Pending carry the batch’s e-mail counts (as `emails` of the batch summary). Safe to open in a spreadsheet: a cell that would start with =, +, -, @, a tab or a carriage return is written with a ' +
      'leading apostrophe, so it is shown as text and never run as a formula.',
    tags,
    auth: 'key',
    params: BatchParams,
    response: { status: 200, schema: Type.Object({}), file: ['text/csv'], description: 'CSV, UTF-8, comma separated, CRLF line ends, header row' },
    errors: ['NOT_FOUND'],
    handler: async ({ auth, params, res }) => {
      assertKnownIdShape(params.batchId, 'Batch');
      const summary = await batchSummary(deps, ownerOf(auth), params.batchId);
      // The batch's e-mail counts beside the rows, where a spreadsheet does not see them as data.
      res.setHeader('X-Emails-Sent', String(summary.emails?.sent ?? 0));
      res.setHeader('X-Emails-Failed', String(summary.emails?.failed ?? 0));
      res.setHeader('X-Emails-Pending', String(summary.emails?.pending ?? 0));
      const text = await batchInvoicesCsv(deps, ownerOf(auth), params.batchId);
      return { file: { bytes: Buffer.from(text, 'utf8'), type: 'text/csv; charset=utf-8', name: `batch-${params.batchId}.csv` } };
    },
  });
}
