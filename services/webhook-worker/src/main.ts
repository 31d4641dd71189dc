import { SecretBox } from '@pay/auth';
import { listen } from '@pay/http';
import { closeRedis, createLogger, Lifecycle, queueRedis, requestRedis, runMain, systemClock } from '@pay/runtime';
import { createWebhooksDb } from '@pay/webhooks';
import { loadWorkerConfig } from './config';
import { buildWorkerApp } from './app';
import { startDelivery } from './start';

runMain(async () => {
  const config = loadWorkerConfig();
  const logger = createLogger('webhook-worker', config.LOG_LEVEL);
  const lifecycle = new Lifecycle(logger, config.SHUTDOWN_TIMEOUT_MS, config.SHUTDOWN_DRAIN_MS);
  // One client on one pool, as every process (@pay/db): the webhooks package's, whose tables
  // are the worker's; the accounts package's merchant lookups run on it too (its $kysely).
  const db = createWebhooksDb(config.DATABASE_URL, config.DATABASE_POOL_MAX, config.DATABASE_POOLING);
  const redis = requestRedis(config, logger);
  const queues = queueRedis(config, logger);
  const delivery = await startDelivery({ config, logger, db, accounts: db, secrets: SecretBox.fromEnv(config.SECRETS_KEY), clock: systemClock, queueRedis: queues });
  const app = buildWorkerApp({ config, logger, db, redis, metrics: delivery.metrics, isShuttingDown: () => lifecycle.isShuttingDown });
  await listen(app, config.PORT, config.HOST, lifecycle, logger);
  lifecycle.onShutdown('delivery', delivery.stop);
  lifecycle.onShutdown('postgres', () => db.$close());
  lifecycle.onShutdown('redis', () => Promise.all([closeRedis(redis), closeRedis(queues)]));
  lifecycle.handleSignals();
});
