import { SecretBox } from '@pay/auth';
import { accountKeys, accountsKeyResolver, createAccountsDb } from '@pay/accounts';
import { closeRedis, createLogger, databasePools, Lifecycle, listen, queueRedis, requestRedis, runMain, systemClock } from '@pay/kit';
import { loadCryptoConfig } from './config';
import { createCryptoDatabase } from './db';
import { buildCryptoApp } from './app';
import { startBackground } from './background';
import { SandboxChain } from './chains/sandbox/sandbox';
import { connectLiveChains, liveChainMap } from './chains/registry';
import { stablecoinRates } from './rates';

runMain(async () => {
  const config = loadCryptoConfig();
  const logger = createLogger('crypto', config.LOG_LEVEL);
  const lifecycle = new Lifecycle(logger, config.SHUTDOWN_TIMEOUT_MS, config.SHUTDOWN_DRAIN_MS);
  // DATABASE_POOL_MAX connections in all: crypto's own schema and accounts.
  const pools = databasePools(config.DATABASE_POOL_MAX, 1);
  const { db, tables, close: closeDb } = createCryptoDatabase(config.DATABASE_URL, pools.main);
  const accounts = createAccountsDb(config.DATABASE_URL, pools.minor);
  const redis = requestRedis(config.REDIS_URL, logger);
  const queues = queueRedis(config.REDIS_URL, logger);
  let kick: () => void = () => undefined;
  const secrets = SecretBox.fromEnv(config.SECRETS_KEY);
  // Each registered live chain that the configuration enables (chains/registry.ts).
  const live = await connectLiveChains(config, { db, clock: systemClock, logger });
  const keys = accountKeys({ resolver: accountsKeyResolver(accounts, secrets), redis, logger });
  const deps = {
    config,
    logger,
    db,
    tables,
    accounts,
    redis,
    queueRedis: queues,
    keys,
    secrets,
    clock: systemClock,
    // Test mode runs on the sandbox chain; live mode on the networks configured (or none).
    chains: { test: new SandboxChain(systemClock, config.SANDBOX_BLOCK_MS), live: liveChainMap(...live) },
    rates: stablecoinRates,
    kickOutbox: () => kick(),
    isShuttingDown: () => lifecycle.isShuttingDown,
  };
  const { app } = buildCryptoApp(deps);
  await listen(app, config.PORT, config.HOST, lifecycle, logger);
  if (config.RUN_WORKERS) {
    const background = startBackground(deps, lifecycle);
    kick = () => void background.relay.kick();
  }
  if (live.length > 0) lifecycle.onShutdown('chain', () => Promise.all(live.map((c) => c.close())));
  lifecycle.onShutdown('postgres', async () => {
    await Promise.all([closeDb(), accounts.$disconnect()]);
  });
  lifecycle.onShutdown('redis', () => Promise.all([keys.close(), closeRedis(redis), closeRedis(queues)]));
  lifecycle.handleSignals();
  logger.info({ workers: config.RUN_WORKERS, api: config.SERVE_API }, 'started');
});
