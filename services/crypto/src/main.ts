import { listen } from '@pay/http';
import { createLogger, Lifecycle, runMain, systemClock } from '@pay/runtime';
import { loadCryptoConfig } from './config';
import { composeCrypto } from './compose';

/** The crypto process: the service as compose.ts builds it, listening, with its background where RUN_WORKERS. */
runMain(async () => {
  const config = loadCryptoConfig();
  const logger = createLogger('crypto', config.LOG_LEVEL);
  const lifecycle = new Lifecycle(logger, config.SHUTDOWN_TIMEOUT_MS, config.SHUTDOWN_DRAIN_MS);
  const crypto = await composeCrypto({
    config,
    logger,
    clock: systemClock,
    // DATABASE_POOL_MAX connections in all, on the one client (crypto's tables and accounts').
    poolSize: config.DATABASE_POOL_MAX,
    isShuttingDown: () => lifecycle.isShuttingDown,
  });
  await listen(crypto.app, config.PORT, config.HOST, lifecycle, logger);
  if (config.RUN_WORKERS) crypto.startBackground(lifecycle);
  for (const c of crypto.closers) lifecycle.onShutdown(c.name, c.close);
  lifecycle.handleSignals();
  logger.info({ workers: config.RUN_WORKERS, api: config.SERVE_API }, 'started');
});
