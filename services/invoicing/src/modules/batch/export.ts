import Papa from 'papaparse';
import type { Owner } from '@pay/auth';
import { money } from '@pay/money';
import type { BatchDeps } from '../../deps';
import { paymentLinkOf } from '../invoices/views';
import { v1Status } from '../invoices/v1/views';
import { batchInvoices } from '../invoices/published';
import { batchSummary } from './batches';
import { emailsOfBatch } from './store';

/**
 * The e-mail columns are the row's payment-link e-mail as recorded by sendBatchEmails, so a
 * merchant sees which customers never got their link and why: emailStatus pending, sent or
 * failed (failed rows are retried until MAX_EMAIL_ATTEMPTS), emailAttempts, emailError (the
 * last SMTP error, empty once sent). All three are empty for a row with no e-mail to send.
 */
export const EXPORT_COLUMNS = [
  'invoiceId',
  'externalId',
  'amount',
  'currency',
  'status',
  'description',
  'email',
  'paymentUrl',
  'createdAt',
  'paidAt',
  'emailStatus',
  'emailAttempts',
  'emailError',
] as const;

/** The batch's invoices as CSV, in the order they were created, with their state now. */
export async function batchInvoicesCsv(deps: BatchDeps, owner: Owner, batchId: string): Promise<string> {
  await batchSummary(deps, owner, batchId); // 404 unless it is the caller's
  const invoices = await batchInvoices(deps.db, owner, batchId);
  const emails = new Map(
    (await emailsOfBatch(deps.db, batchId)).map((e) => [e.invoiceId, e]),
  );
  const rows = invoices.map((i) => {
    const e = emails.get(i.id);
    return { ...i, email_status: e?.status ?? null, email_attempts: e?.attempts ?? null, email_error: e?.lastError ?? null };
  });
  // papaparse quotes what needs it and escapes cells a spreadsheet would run as a formula
  // (`=`, `+`, `-`, `@`, tab, CR: a leading `'`, OWASP's advice against CSV injection).
  const csv = Papa.unparse(
    {
      fields: [...EXPORT_COLUMNS],
      data: rows.map((r) => [
        r.id,
        r.external_id,
        money(r.amount).toFixed(2),
        r.currency,
        v1Status(r),
        r.description,
        r.customer_email,
        paymentLinkOf(deps.config.PUBLIC_URL, r.id),
        r.created_at.toISOString(),
        r.paid_at?.toISOString() ?? null,
        r.email_status,
        r.email_attempts === null ? null : String(r.email_attempts),
        r.email_error,
      ]),
    },
    { escapeFormulae: true, newline: '\r\n' },
  );
  return `${csv}\r\n`;
}
