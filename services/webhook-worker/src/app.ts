import type { Express } from 'express';
import type { Redis } from 'ioredis';
import type { AccountsDb } from '@pay/accounts';
import { createHttpApp, finishHttpApp, type Logger, redisReady } from '@pay/kit';
import type { WorkerConfig } from './config';

export interface WorkerDeps {
  config: WorkerConfig;
  logger: Logger;
  accounts: AccountsDb;
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
      { name: 'postgres', check: () => deps.accounts.$queryRaw`SELECT 1` },
      { name: 'redis', check: () => redisReady(deps.redis) },
    ],
  });
  return finishHttpApp(app, () => 'success');
}
