import type { Owner } from '@pay/auth';
import { money } from '@pay/kit';
import type { InvoicingDeps } from '../deps';
import { paymentLinkOf } from '../invoices/views';
import { v1Status } from '../v1/views';
import { batchSummary } from './batches';

/** A spreadsheet runs a cell starting with one of these as a formula (CSV injection). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * One CSV cell, safe to open in a spreadsheet: text that a spreadsheet would take for a
 * formula gets a leading `'` (OWASP's advice), and a cell with a comma, quote or line break
 * is quoted with its quotes doubled. Every cell of every export goes through here.
 */
export function csvCell(value: string | null): string {
  if (value === null) return '';
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export const toCsv = (header: readonly string[], rows: (string | null)[][]) =>
  [header, ...rows].map((cells) => cells.map(csvCell).join(',')).join('\r\n') + '\r\n';

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
export async function batchInvoicesCsv(deps: InvoicingDeps, owner: Owner, batchId: string): Promise<string> {
  await batchSummary(deps, owner, batchId); // 404 unless it is the caller's
  const { rows } = await deps.sql.query<{
    id: string;
    external_id: string | null;
    amount: string;
    currency: string;
    status: 'PENDING' | 'PAID' | 'EXPIRED' | 'CANCELLED';
    description: string | null;
    customer_email: string | null;
    created_at: Date;
    paid_at: Date | null;
    email_status: 'pending' | 'sent' | 'failed' | null;
    email_attempts: number | null;
    email_error: string | null;
  }>(
    `SELECT i.id, i.external_id, i.amount::text AS amount, i.currency::text AS currency, i.status::text AS status, i.description, i.customer_email,
            i.created_at, i.paid_at, e.status::text AS email_status, e.attempts AS email_attempts, e.last_error AS email_error
       FROM invoicing.invoices i LEFT JOIN invoicing.invoice_emails e ON e.invoice_id = i.id
      WHERE i.batch_id = $1 AND i.merchant_id = $2 AND i.is_test = $3 ORDER BY i.created_at, i.external_id, i.id`,
    [batchId, owner.merchantId, owner.isTest],
  );
  return toCsv(
    EXPORT_COLUMNS,
    rows.map((r) => [
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
  );
}
