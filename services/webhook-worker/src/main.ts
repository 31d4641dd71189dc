import { createAccountsDb } from '@pay/accounts';
import { SecretBox } from '@pay/auth';
import { closeRedis, createLogger, Lifecycle, listen, queueRedis, requestRedis, runMain, systemClock } from '@pay/kit';
import { createWebhooksDb } from '@pay/webhooks';
import { loadWorkerConfig } from './config';
import { buildWorkerApp } from './app';
import { startDelivery } from './start';

runMain(async () => {
  const config = loadWorkerConfig();
  const logger = createLogger('webhook-worker', config.LOG_LEVEL);
  const lifecycle = new Lifecycle(logger, config.SHUTDOWN_TIMEOUT_MS);
  const accounts = createAccountsDb(config.DATABASE_URL, 2);
  const db = createWebhooksDb(config.DATABASE_URL, 8);
  const redis = requestRedis(config.REDIS_URL, logger);
  const queues = queueRedis(config.REDIS_URL, logger);
  const delivery = await startDelivery({ config, logger, db, accounts, secrets: SecretBox.fromEnv(config.SECRETS_KEY), clock: systemClock, queueRedis: queues });
  const app = buildWorkerApp({ config, logger, accounts, redis, metrics: delivery.metrics, isShuttingDown: () => lifecycle.isShuttingDown });
  await listen(app, config.PORT, config.HOST, lifecycle, logger);
  lifecycle.onShutdown('delivery', delivery.stop);
  lifecycle.onShutdown('postgres', () => Promise.all([accounts.$disconnect(), db.$disconnect()]));
  lifecycle.onShutdown('redis', () => Promise.all([closeRedis(redis), closeRedis(queues)]));
  lifecycle.handleSignals();
});
