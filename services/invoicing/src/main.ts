import { SecretBox } from '@pay/auth';
import { accountKeys, accountsKeyResolver, createAccountsDb } from '@pay/accounts';
import { closeRedis, createLogger, databasePools, Lifecycle, listen, queueRedis, requestRedis, runMain, systemClock } from '@pay/kit';
import { createWebhooksDb } from '@pay/webhooks';
import { loadInvoicingConfig } from './config';
import { webhookWaker } from './channels/console/wakes';
import { buildInvoicingApp } from './app';
import { startBackground } from './background';
import { createInvoicingDb } from './db';
import { paymentProvidersFrom } from './payments/from-config';
import { smtpMailer } from './modules/batch/mailer';
import type { InvoicingDeps } from './deps';
import { receiptStorageFrom } from './modules/receipts/storage-from-config';

runMain(async () => {
  const config = loadInvoicingConfig();
  const logger = createLogger('invoicing', config.LOG_LEVEL);
  const lifecycle = new Lifecycle(logger, config.SHUTDOWN_TIMEOUT_MS, config.SHUTDOWN_DRAIN_MS);
  // DATABASE_POOL_MAX connections in all: invoicing's own schema, accounts and webhooks.
  const pools = databasePools(config.DATABASE_POOL_MAX, 2);
  const accounts = createAccountsDb(config.DATABASE_URL, pools.minor);
  const { db, tables, sql, close: closeDb } = createInvoicingDb(config.DATABASE_URL, pools.main);
  const redis = requestRedis(config.REDIS_URL, logger);
  const queues = queueRedis(config.REDIS_URL, logger);
  const secrets = SecretBox.fromEnv(config.SECRETS_KEY);
  const keys = accountKeys({ resolver: accountsKeyResolver(accounts, secrets), redis, logger });
  const webhooks = createWebhooksDb(config.DATABASE_URL, pools.minor);
  const waker = webhookWaker(queues, config.QUEUE_PREFIX, logger);
  const mailer = smtpMailer(config);
  let kick: () => void = () => undefined;
  const deps: InvoicingDeps = {
    config,
    logger,
    accounts,
    db,
    tables,
    sql,
    // Test mode pays through the sandbox (or T-Bank's demo terminal); live mode through T-Bank when configured, else live invoices are refused.
    providers: paymentProvidersFrom(config, { db, clock: systemClock, logger }),
    redis,
    queueRedis: queues,
    keys,
    secrets,
    receiptStorage: receiptStorageFrom(config),
    webhooks,
    wakeWebhooks: waker.wake,
    clock: systemClock,
    mailer,
    kickOutbox: () => kick(),
    isShuttingDown: () => lifecycle.isShuttingDown,
  };
  const { app } = buildInvoicingApp(deps);
  await listen(app, config.PORT, config.HOST, lifecycle, logger);
  if (config.RUN_WORKERS) {
    const background = startBackground(deps, lifecycle);
    kick = () => void background.relay.kick();
  }
  lifecycle.onShutdown('mailer', async () => mailer.close());
  lifecycle.onShutdown('webhook wakes', waker.close);
  lifecycle.onShutdown('postgres', async () => {
    await Promise.all([accounts.$disconnect(), webhooks.$disconnect(), closeDb()]);
  });
  lifecycle.onShutdown('redis', () => Promise.all([keys.close(), closeRedis(redis), closeRedis(queues)]));
  lifecycle.handleSignals();
  logger.info({ workers: config.RUN_WORKERS }, 'started');
});
