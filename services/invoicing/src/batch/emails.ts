import { money } from '@pay/kit';
import type { InvoicingDeps } from '../deps';
import { paymentLinkOf } from '../invoices/views';
import type { MailMessage } from './mailer';

/**
 * Sends an e-mail gets in all: a job retries with backoff (Queues.batchEmails), and the
 * reconciler gives a batch whose job gave up a new one, until each row has had this many.
 * A row that still fails then stays `failed`, with its last SMTP error, for the merchant to see.
 */
export const MAX_EMAIL_ATTEMPTS = 20;

interface PendingEmail {
  invoice_id: string;
  to_address: string;
  amount: string;
  currency: string;
  description: string | null;
  expires_at: Date;
}

/** The payment link of one invoice, as plain text (no HTML: merchant text cannot become markup). */
export function paymentLinkEmail(e: PendingEmail, publicUrl: string): MailMessage {
  const amount = `${money(e.amount).toFixed(2)} ${e.currency}`;
  return {
    to: e.to_address,
    subject: `Invoice for ${amount}`,
    text:
      `Hello,\n\nYou have an invoice for ${amount}${e.description ? ` (${e.description})` : ''}.\n\n` +
      `Pay it here: ${paymentLinkOf(publicUrl, e.invoice_id)}\n\nThe link is valid until ${e.expires_at.toISOString().slice(0, 16).replace('T', ' ')} UTC.\n`,
  };
}

/** Runs `fn` over `items`, at most `limit` at a time. */
async function eachLimited<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await fn(items[next++]!);
  });
  await Promise.all(lanes);
}

/**
 * Sends every e-mail of the batch not yet sent, over the pooled SMTP transport, and records
 * each outcome on its row (sent, or failed with the SMTP error and the attempt count). If any
 * failed it throws, so the queue runs the job again with backoff; after the last attempt the
 * failures stay recorded on their rows, never dropped.
 */
export async function sendBatchEmails(deps: InvoicingDeps, batchId: string): Promise<{ sent: number; failed: number }> {
  const { rows } = await deps.sql.query<PendingEmail>(
    `SELECT e.invoice_id, e.to_address, i.amount::text AS amount, i.currency::text AS currency, i.description, i.expires_at
       FROM invoicing.invoice_emails e JOIN invoicing.invoices i ON i.id = e.invoice_id
      WHERE e.batch_id = $1 AND e.status <> 'sent' AND e.attempts < $2 ORDER BY e.invoice_id`,
    [batchId, MAX_EMAIL_ATTEMPTS],
  );
  const sent: string[] = [];
  const failed: { id: string; error: string }[] = [];
  await eachLimited(rows, deps.mailer.concurrency, async (e) => {
    try {
      await deps.mailer.send(paymentLinkEmail(e, deps.config.PUBLIC_URL));
      sent.push(e.invoice_id);
    } catch (err) {
      failed.push({ id: e.invoice_id, error: (err as Error).message.slice(0, 500) });
    }
  });
  const now = deps.clock.now();
  if (sent.length) {
    await deps.sql.query(
      `UPDATE invoicing.invoice_emails SET status = 'sent', sent_at = $2, attempts = attempts + 1, last_error = NULL WHERE invoice_id = ANY($1::uuid[])`,
      [sent, now],
    );
  }
  if (failed.length) {
    await deps.sql.query(
      `UPDATE invoicing.invoice_emails e SET status = 'failed', attempts = e.attempts + 1, last_error = u.error
         FROM unnest($1::uuid[], $2::text[]) AS u(id, error) WHERE e.invoice_id = u.id`,
      [failed.map((f) => f.id), failed.map((f) => f.error)],
    );
    deps.logger.warn({ batchId, sent: sent.length, failed: failed.length, firstError: failed[0]!.error }, 'batch e-mails failed; the job will retry');
    throw new Error(`${failed.length} of ${rows.length} e-mails of batch ${batchId} failed (first: ${failed[0]!.error})`);
  }
  return { sent: sent.length, failed: 0 };
}

/**
 * Batches with e-mails not sent and attempts left: never tried (their job lost with Redis),
 * or failed after a job gave up. The reconciler gives each a job again (same id, so a job still
 * queued or in its backoff is not doubled).
 */
export async function batchesWithUnsentEmails(deps: InvoicingDeps): Promise<string[]> {
  const { rows } = await deps.sql.query<{ batch_id: string }>(
    `SELECT DISTINCT batch_id FROM invoicing.invoice_emails WHERE status <> 'sent' AND attempts < $1 LIMIT 100`,
    [MAX_EMAIL_ATTEMPTS],
  );
  return rows.map((r) => r.batch_id);
}
