import { Queue } from 'bullmq';
import type { Logger, RedisClient } from '@pay/runtime';
import { Queues, wakeWebhookWorker, type WebhookWakeJob } from '@pay/queue';

/**
 * Wakes the webhook worker after a console action (test, resend, replay). Not awaited by the
 * request: the rows are already in Postgres, and the worker's poll finds them anyway if Redis
 * is away.
 */
export function webhookWaker(connection: RedisClient, prefix: string, logger: Logger) {
  const queue = new Queue(Queues.webhookWakes.name, { connection, prefix });
  return {
    wake(reason: WebhookWakeJob['reason']): void {
      wakeWebhookWorker(queue, reason).catch((err) => logger.warn({ err: { message: (err as Error).message } }, 'could not wake the webhook worker; it will poll'));
    },
    close: () => queue.close(),
  };
}
