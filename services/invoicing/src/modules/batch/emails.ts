import { BRAND_LANGUAGES, merchantBrand, type BrandLanguage, type MerchantBrand } from '@pay/accounts';
import { html } from '@pay/http';
import type { BatchDeps } from '../../deps';
import { formatAmount, LOCALES } from '../../languages';
import { EMAIL_TEXTS } from './email-texts';
import { invoicesForEmails } from '../invoices/published';
import { paymentLinkOf } from '../invoices/views';
import type { MailMessage } from './mailer';
import { batchForWork, batchIdsWithUnsentEmails, markEmailsFailed, markEmailsSent, unsentBatchEmails } from './store';

/**
 * Sends an e-mail gets in all: a job retries with backoff (Queues.batchEmails), and the
 * reconciler gives a batch whose job gave up a new one, until each row has had this many.
 * A row that still fails then stays `failed`, with its last SMTP error, for the merchant to see.
 */
export { MAX_EMAIL_ATTEMPTS } from './store';


/** An e-mail to send: its row's invoice and address, with what the message says of the invoice. */
interface PendingEmail {
  invoiceId: string;
  toAddress: string;
  amount: string;
  currency: string;
  description: string | null;
  expiresAt: Date;
  /** The batch row's `language`; null: the merchant's default. */
  language: BrandLanguage | null;
}

/** What an e-mail says of the merchant who sends the invoice (`merchantBrand`). */
export type EmailSender = Pick<MerchantBrand, 'displayName' | 'email' | 'defaultLanguage'>;

/** Each language's expiry format, built once: a formatter costs ~60 µs to build and ~2 µs to use, and a batch writes one date per e-mail. */
const untilFormats = new Map<BrandLanguage, Intl.DateTimeFormat>();
function untilText(at: Date, language: BrandLanguage): string {
  let format = untilFormats.get(language);
  if (!format) untilFormats.set(language, (format = new Intl.DateTimeFormat(LOCALES[language], { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' })));
  return `${format.format(at)} UTC`;
}

/**
 * The payment link of one invoice, from the merchant: its display name as the sender ("<name>
 * via <platform>", the mailer), replies to the merchant's registered e-mail, in the batch row's
 * `language` (the optional column beside the spec's), else the merchant's default language,
 * the amount as that language writes it (`2 500,00 ₽`). Plain text, and the same as HTML with the
 * link as a link (a mailbox that shows text does not make it one). The HTML is built with
 * @pay/http's `html` template, so the merchant's name and description are escaped and cannot
 * become markup. The link opens a new top-level tab (`target="_blank"`): a web mailbox shows the
 * message in a frame, and the pay page refuses to be framed (`frame-ancestors 'none'`).
 */
export function paymentLinkEmail(e: PendingEmail, publicUrl: string, sender: EmailSender): MailMessage {
  const language = e.language ?? sender.defaultLanguage;
  const t = EMAIL_TEXTS[language];
  const name = sender.displayName;
  const amount = formatAmount(e.amount, e.currency, language);
  const link = paymentLinkOf(publicUrl, e.invoiceId);
  const until = untilText(e.expiresAt, language);
  const what = `${t.invoice(amount, name)}${e.description ? ` (${e.description})` : ''}.`;
  return {
    to: e.toAddress,
    fromName: name,
    replyTo: sender.email,
    language,
    subject: t.subject(amount, name),
    text: `${t.hello}\n\n${what}\n\n${t.pay}: ${link}\n\n${t.validUntil(until)}\n\n${t.replies(name)}\n`,
    html: html`<!doctype html><html lang="${language}"><head><meta charset="utf-8"><title>${t.subject(amount, name)}</title></head><body><p>${t.hello}</p><p>${t.invoice(amount, name)}${
      e.description ? html` (${e.description})` : ''
    }.</p><p><a href="${link}" target="_blank" rel="noopener">${t.pay}</a>: ${link}</p><p>${t.validUntil(until)}</p><p>${t.replies(name)}</p></body></html>`.value,
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
export async function sendBatchEmails(deps: BatchDeps, batchId: string): Promise<{ sent: number; failed: number }> {
  const unsent = await unsentBatchEmails(deps.db, batchId);
  if (unsent.length === 0) return { sent: 0, failed: 0 };
  const batch = await batchForWork(deps.db, batchId);
  // Read once per batch (one merchant's): who the e-mails come from, and in which language.
  const sender = await merchantBrand(deps.db, batch!.merchantId);
  const invoices = new Map((await invoicesForEmails(deps.db, unsent.map((e) => e.invoiceId))).map((i) => [i.id, i]));
  const rows: PendingEmail[] = unsent.map((e) => {
    const i = invoices.get(e.invoiceId)!;
    const language = (BRAND_LANGUAGES as readonly string[]).includes(e.language ?? '') ? (e.language as BrandLanguage) : null;
    return { invoiceId: e.invoiceId, toAddress: e.toAddress, amount: i.amount, currency: i.currency, description: i.description, expiresAt: i.expires_at, language };
  });
  const sent: string[] = [];
  const failed: { id: string; error: string }[] = [];
  await eachLimited(rows, deps.mailer.concurrency, async (e) => {
    try {
      await deps.mailer.send(paymentLinkEmail(e, deps.config.PUBLIC_URL, sender));
      sent.push(e.invoiceId);
    } catch (err) {
      failed.push({ id: e.invoiceId, error: (err as Error).message.slice(0, 500) });
    }
  });
  const now = deps.clock.now();
  if (sent.length) {
    await markEmailsSent(deps.db, sent, now);
  }
  if (failed.length) {
    await markEmailsFailed(deps.db, failed);
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
export async function batchesWithUnsentEmails(deps: BatchDeps): Promise<string[]> {
  return batchIdsWithUnsentEmails(deps.db);
}
