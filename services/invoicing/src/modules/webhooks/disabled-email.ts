// The e-mail to a merchant whose webhook was disabled: queued (outbox) in the transaction that
// announced `endpoint.disabled` (by the webhook worker, or by updateWebhook here), sent by
// invoicing's background, which has the mailer.
import type { Worker } from 'bullmq';
import { merchantBrand } from '@pay/accounts';
import { startWorker, webhookDisabledEmail, writeOutbox } from '@pay/queue';
import type { Lifecycle } from '@pay/runtime';
import { disabledEndpointOf, type AlsoOnDisabled } from '@pay/webhooks';
import type { InvoicingDeps } from '../../deps';

/** What a merchant's disabling writes beside its `endpoint.disabled`: the e-mail's job. */
export const queueDisabledEmail: AlsoOnDisabled = (tx, e) => writeOutbox(tx, webhookDisabledEmail(e));

type EmailDeps = Pick<InvoicingDeps, 'db' | 'mailer' | 'config' | 'queueRedis' | 'logger'>;

/** Sends it, unless the webhook was deleted or enabled again meanwhile (nothing to tell then). Returns whether it was sent. */
export async function sendDisabledEmail(deps: Pick<EmailDeps, 'db' | 'mailer' | 'config'>, job: { endpointId: string; disabledAt: string }): Promise<boolean> {
  const endpoint = await disabledEndpointOf(deps.db, job.endpointId, new Date(job.disabledAt));
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
  return true;
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
