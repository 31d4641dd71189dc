import { SecretBox } from '@pay/auth';
import { createAccountsDb } from '@pay/accounts';
import { closeRedis, createLogger, Lifecycle, listen, queueRedis, requestRedis, runMain, systemClock } from '@pay/kit';
import { loadInvoicingConfig } from './config';
import { buildInvoicingApp } from './app';
import { startBackground } from './background';
import { createInvoicingDb } from './db';
import { SandboxProvider } from './payments/sandbox';
import type { InvoicingDeps } from './deps';

runMain(async () => {
  const config = loadInvoicingConfig();
  const logger = createLogger('invoicing', config.LOG_LEVEL);
  const lifecycle = new Lifecycle(logger, config.SHUTDOWN_TIMEOUT_MS);
  const accounts = createAccountsDb(config.DATABASE_URL);
  const { db, sql, close: closeDb } = createInvoicingDb(config.DATABASE_URL);
  const redis = requestRedis(config.REDIS_URL, logger);
  const queues = queueRedis(config.REDIS_URL, logger);
  const deps: InvoicingDeps = {
    config,
    logger,
    accounts,
    db,
    sql,
    // Test mode pays through the sandbox; no live acquirer is connected in this build, so live invoices are refused.
    providers: { test: new SandboxProvider(config.PUBLIC_URL), live: null },
    redis,
    queueRedis: queues,
    secrets: SecretBox.fromEnv(config.SECRETS_KEY),
    clock: systemClock,
    kickOutbox: () => undefined,
    isShuttingDown: () => lifecycle.isShuttingDown,
  };
  const { app } = buildInvoicingApp(deps);
  await listen(app, config.PORT, config.HOST, lifecycle, logger);
  if (config.RUN_WORKERS) startBackground(deps, lifecycle);
  lifecycle.onShutdown('postgres', async () => {
    await Promise.all([accounts.$disconnect(), closeDb()]);
  });
  lifecycle.onShutdown('redis', () => Promise.all([closeRedis(redis), closeRedis(queues)]));
  lifecycle.handleSignals();
  logger.info({ workers: config.RUN_WORKERS }, 'started');
});
