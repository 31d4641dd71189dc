import { listen } from '@pay/http';
import { createLogger, Lifecycle, runMain } from '@pay/runtime';
import { loadInvoicingConfig } from './load-config';
import { composeInvoicing } from './compose';

runMain(async () => {
  const config = loadInvoicingConfig();
  const logger = createLogger('invoicing', config.LOG_LEVEL);
  const lifecycle = new Lifecycle(logger, config.SHUTDOWN_TIMEOUT_MS, config.SHUTDOWN_DRAIN_MS);
  const invoicing = composeInvoicing(config, { logger, isShuttingDown: () => lifecycle.isShuttingDown });
  await listen(invoicing.app, config.PORT, config.HOST, lifecycle, logger);
  if (config.RUN_WORKERS) invoicing.startBackground(lifecycle);
  for (const [name, close] of invoicing.closers) lifecycle.onShutdown(name, close);
  lifecycle.handleSignals();
  logger.info({ workers: config.RUN_WORKERS }, 'started');
});
