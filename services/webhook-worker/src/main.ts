import { createAccountsDb } from '@pay/accounts';
import { closeRedis, createLogger, Lifecycle, listen, requestRedis, runMain } from '@pay/kit';
import { loadWorkerConfig } from './config';
import { buildWorkerApp } from './app';

runMain(async () => {
  const config = loadWorkerConfig();
  const logger = createLogger('webhook-worker', config.LOG_LEVEL);
  const lifecycle = new Lifecycle(logger, config.SHUTDOWN_TIMEOUT_MS);
  const accounts = createAccountsDb(config.DATABASE_URL, 2);
  const redis = requestRedis(config.REDIS_URL, logger);
  const app = buildWorkerApp({ config, logger, accounts, redis, isShuttingDown: () => lifecycle.isShuttingDown });
  await listen(app, config.PORT, config.HOST, lifecycle, logger);
  lifecycle.onShutdown('postgres', () => accounts.$disconnect());
  lifecycle.onShutdown('redis', () => closeRedis(redis));
  lifecycle.handleSignals();
});
