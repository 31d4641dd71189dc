import { Queue } from 'bullmq';
import type { SecretBox } from '@pay/auth';
import type { Clock, Lifecycle, Logger, RedisClient } from '@pay/runtime';
import { Queues, startWorker } from '@pay/queue';
import { queueDepth, type Queries, type Transactions } from '@pay/webhooks';
import type { WorkerConfig } from './config';
import { DeliveryWorker } from './delivery-worker';
import { listenForEvents } from './event-listener';
import { DeliveryMetrics } from './metrics';
import { WebhookSender } from './sender';

export interface DeliveryDeps {
  config: WorkerConfig;
  logger: Logger;
  db: Transactions;
  /** Reads merchants' webhook URLs and secrets (the accounts package's queries). */
  accounts: Queries;
  secrets: SecretBox;
  clock: Clock;
  /** BullMQ's connection (waits out Redis outages). */
  queueRedis: RedisClient;
  lifecycle?: Lifecycle;
  /** Tests resolve names their own way (a public-looking name that points to loopback). */
  lookup?: ConstructorParameters<typeof WebhookSender>[0]['lookup'];
}

/**
 * Delivery as the worker process runs it: the delivery loop, what kicks it (notifications of
 * new events from Postgres, and wake jobs: console actions and due retries), the queue retry
 * wakes go to, and the metrics.
 */
export async function startDelivery(deps: DeliveryDeps) {
  const c = deps.config;
  const sender = new WebhookSender({ allowPrivate: c.ALLOW_PRIVATE_WEBHOOK_URLS, timeoutMs: c.WEBHOOK_TIMEOUT_MS, lookup: deps.lookup });
  const wakes = new Queue(Queues.webhookWakes.name, { connection: deps.queueRedis, prefix: c.QUEUE_PREFIX });
  let worker: DeliveryWorker | undefined;
  const metrics = new DeliveryMetrics(async () => ({ ...(await queueDepth(deps.db, deps.clock.now())), inProcess: worker?.inProcess ?? 0 }));
  worker = new DeliveryWorker({
    db: deps.db,
    accounts: deps.accounts,
    secrets: deps.secrets,
    clock: deps.clock,
    logger: deps.logger,
    sender,
    wakes,
    metrics,
    concurrency: c.WEBHOOK_CONCURRENCY,
    perEndpoint: c.WEBHOOK_ENDPOINT_CONCURRENCY,
    pollIntervalMs: c.WEBHOOK_POLL_INTERVAL_MS,
    ttlMs: c.WEBHOOK_WORKER_TTL_MS,
  });
  await worker.start();
  const delivery = worker;
  const consumer = startWorker({
    queue: 'webhookWakes',
    connection: deps.queueRedis,
    prefix: c.QUEUE_PREFIX,
    logger: deps.logger,
    concurrency: 1,
    process: async () => delivery.kick(),
  });
  // Events recorded by any service wake the loop at their commit (Postgres NOTIFY). LISTEN holds
  // a session, which PgBouncer in transaction pooling does not keep: Postgres itself, directly.
  const events = listenForEvents({ databaseUrl: c.DATABASE_DIRECT_URL ?? c.DATABASE_URL, logger: deps.logger, onEvent: () => delivery.kick() });
  const stop = async () => {
    await events.close();
    await consumer.close();
    await delivery.stop();
    await wakes.close();
    sender.close();
  };
  deps.lifecycle?.onShutdown('delivery', stop);
  return { worker: delivery, metrics, wakes, sender, events, stop };
}
