import type { Express } from 'express';
import type { Redis } from 'ioredis';
import type { Pool } from 'pg';
import { createHttpApp, finishHttpApp, type Logger, redisReady } from '@pay/kit';
import type { WorkerConfig } from './config';

export interface WorkerDeps {
  config: WorkerConfig;
  logger: Logger;
  /** Only the readiness probe touches Postgres today; a Prisma client arrives with the first query. */
  pg: Pool;
  redis: Redis;
  isShuttingDown: () => boolean;
}

/** The worker's only HTTP surface: probes for the orchestrator. */
export function buildWorkerApp(deps: WorkerDeps): Express {
  const app = createHttpApp({
    service: 'webhook-worker',
    logger: deps.logger,
    bodyLimit: deps.config.BODY_LIMIT,
    isShuttingDown: deps.isShuttingDown,
    envelopeFor: () => 'success',
    readiness: [
      { name: 'postgres', check: () => deps.pg.query('SELECT 1') },
      { name: 'redis', check: () => redisReady(deps.redis) },
    ],
  });
  return finishHttpApp(app, () => 'success');
}
