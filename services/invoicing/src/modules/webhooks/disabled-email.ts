// The e-mail to a merchant whose webhook was disabled: queued (outbox) in the transaction that
// announced `endpoint.disabled` (by the webhook worker, or by updateWebhook here), sent by
// invoicing's background, which has the mailer.
import type { Queue, Worker } from 'bullmq';
import { merchantBrand } from '@pay/accounts';
import { requeueJobs, startWorker, webhookDisabledEmail, webhookDisabledEmailId, webhookDisabledEmailJob, writeOutbox } from '@pay/queue';
import type { Lifecycle } from '@pay/runtime';
import { disabledEmailSent, disabledEndpointOf, disablingsNotEmailed, type AlsoOnDisabled } from '@pay/webhooks';
import type { InvoicingDeps } from '../../deps';

/** What a merchant's disabling writes beside its `endpoint.disabled`: the e-mail's job. */
export const queueDisabledEmail: AlsoOnDisabled = (tx, e) => writeOutbox(tx, webhookDisabledEmail(e));

type EmailDeps = Pick<InvoicingDeps, 'db' | 'mailer' | 'config' | 'queueRedis' | 'logger' | 'clock'>;

/** A disabling older than this gets no e-mail any more: the console has shown it since. */
const DISABLED_EMAIL_WINDOW_MS = 7 * 24 * 3600_000;

/**
 * Sends it, unless the webhook was deleted or enabled again meanwhile (nothing to tell then) or
 * it was sent already, and records it sent. Returns whether it was sent. A process that dies
 * between the SMTP server's answer and the record sends it once more: at least once, never lost.
 */
export async function sendDisabledEmail(deps: Pick<EmailDeps, 'db' | 'mailer' | 'config' | 'clock'>, job: { endpointId: string; disabledAt: string }): Promise<boolean> {
  const disabledAt = new Date(job.disabledAt);
  const endpoint = await disabledEndpointOf(deps.db, job.endpointId, disabledAt);
  if (!endpoint) return false;
  const brand = await merchantBrand(deps.db, endpoint.merchantId);
  const page = `${deps.config.PUBLIC_URL.replace(/\/$/, '')}/console/webhooks/${endpoint.id}`;
  await deps.mailer.send({
    to: brand.email,
    subject: `Webhook disabled: ${endpoint.url}`,
    text: [
      `Your ${endpoint.isTest ? 'test' : 'live'} webhook ${endpoint.url}${endpoint.description ? ` (${endpoint.description})` : ''} was disabled at ${endpoint.disabledAt.toISOString()}: ${endpoint.disabledReason}.`,
      '',
      'Nothing is sent to it until it is enabled again; events meanwhile are kept as failed deliveries.',
      `Enable it and replay what it missed in the console (${page}),`,
      `or with PATCH /api/v2/webhooks/${endpoint.id} {"enabled": true}, then POST /api/v2/webhooks/${endpoint.id}/replay.`,
      '',
      'Your other webhooks subscribed to endpoint.disabled were sent this as an event.',
    ].join('\n'),
  });
  await disabledEmailSent(deps.db, endpoint.id, disabledAt, deps.clock.now());
  return true;
}

/**
 * Redis keeps nothing on disk, and a job gives up after its attempts (6, about a minute of an
 * SMTP server away): each disabling of the last 7 days announced and not yet e-mailed gets its
 * job again, with the id the announcement gave it, so one still queued or retrying is not
 * doubled. Returns how many were queued.
 */
export async function reconcileDisabledEmails(deps: Pick<EmailDeps, 'db' | 'clock'>, queue: Queue): Promise<number> {
  const since = new Date(deps.clock.now().getTime() - DISABLED_EMAIL_WINDOW_MS);
  const missing = await disablingsNotEmailed(deps.db, { since });
  return requeueJobs(queue, 'webhookDisabledEmails', missing.map((e) => ({ jobId: webhookDisabledEmailId(e), data: webhookDisabledEmailJob(e) })));
}

/** The e-mails' consumer (retried with backoff while SMTP is away). */
export function startDisabledEmailWorker(deps: EmailDeps, lifecycle?: Lifecycle): Worker {
  return startWorker({
    connection: deps.queueRedis,
    prefix: deps.config.QUEUE_PREFIX,
    logger: deps.logger,
    lifecycle,
    queue: 'webhookDisabledEmails',
    concurrency: 2,
    process: async (job) => {
      await sendDisabledEmail(deps, job);
    },
  });
}
