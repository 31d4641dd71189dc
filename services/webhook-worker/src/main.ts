import { Pool } from 'pg';
import { closeRedis, createLogger, Lifecycle, listen, requestRedis, runMain } from '@pay/kit';
import { loadWorkerConfig } from './config';
import { buildWorkerApp } from './app';

runMain(async () => {
  const config = loadWorkerConfig();
  const logger = createLogger('webhook-worker', config.LOG_LEVEL);
  const lifecycle = new Lifecycle(logger, config.SHUTDOWN_TIMEOUT_MS);
  // A plain pool, not a Prisma client: the worker queries nothing yet, and a Prisma client
  // compiles its WASM query compiler (tens of MB resident) the first time it connects.
  // Probes against an unreachable host give up like the probe does, rather than queueing.
  const pg = new Pool({ connectionString: config.DATABASE_URL, max: 2, connectionTimeoutMillis: 2_000 });
  // An idle connection that breaks (Postgres restarted) must not crash the process; the
  // next readiness check reports it.
  pg.on('error', (err) => logger.warn({ err: { message: err.message } }, 'idle postgres connection failed'));
  const redis = requestRedis(config.REDIS_URL, logger);
  const app = buildWorkerApp({ config, logger, pg, redis, isShuttingDown: () => lifecycle.isShuttingDown });
  await listen(app, config.PORT, config.HOST, lifecycle, logger);
  lifecycle.onShutdown('postgres', () => pg.end());
  lifecycle.onShutdown('redis', () => closeRedis(redis));
  lifecycle.handleSignals();
});
