import type { Express } from 'express';
import { postgresReady, type Queries } from '@pay/db';
import { createHttpApp, finishHttpApp } from '@pay/http';
import { type Logger, redisReady, type RedisClient } from '@pay/runtime';
import type { WorkerConfig } from './config';
import type { DeliveryMetrics } from './metrics';

export interface WorkerDeps {
  config: WorkerConfig;
  logger: Logger;
  /** The deliveries' database; the readiness probe asks it too. */
  db: Queries;
  redis: RedisClient;
  metrics: DeliveryMetrics;
  isShuttingDown: () => boolean;
}

/** The worker's HTTP surface: probes for the orchestrator and Prometheus metrics. */
export function buildWorkerApp(deps: WorkerDeps): Express {
  const app = createHttpApp({
    service: 'webhook-worker',
    logger: deps.logger,
    bodyLimit: deps.config.BODY_LIMIT,
    isShuttingDown: deps.isShuttingDown,
    envelopeFor: () => 'success',
    metricsToken: deps.config.METRICS_TOKEN,
    readiness: [
      { name: 'postgres', check: () => postgresReady(deps.db.$kysely) },
      { name: 'redis', check: () => redisReady(deps.redis) },
    ],
  });
  return finishHttpApp(app, () => 'success');
}
