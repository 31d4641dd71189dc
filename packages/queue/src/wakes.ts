import type { Queue } from 'bullmq';
import { assertValid } from '@pay/schemas';
import { Queues, type WebhookWakeJob } from './jobs';

/**
 * Wakes the webhook worker now, or when `dueAt` (ms) comes. Wakes due in the same second
 * share one delayed job (its id names the second), so a burst of failures does not put a job
 * per delivery in Redis.
 */
export async function wakeWebhookWorker(queue: Queue, reason: WebhookWakeJob['reason'], dueAt?: number, now: number = Date.now()): Promise<void> {
  const spec = Queues.webhookWakes;
  const job: WebhookWakeJob = { reason };
  assertValid(spec.schema, job, { what: `Job for ${spec.name}` });
  if (dueAt === undefined || dueAt <= now) {
    await queue.add(spec.name, job, spec.jobOptions);
    return;
  }
  const second = Math.ceil(dueAt / 1000);
  await queue.add(spec.name, job, { ...spec.jobOptions, jobId: `due-${second}`, delay: second * 1000 - now });
}
