import { pgAdapter, pgPool } from '@pay/kit';
import { PrismaClient } from './generated/prisma/client';

/** Postgres schema owned by this package. */
export const WEBHOOKS_SCHEMA = 'webhooks';

export function createWebhooksDb(databaseUrl: string, poolSize = 5): PrismaClient {
  return new PrismaClient({ adapter: pgAdapter(pgPool(databaseUrl, WEBHOOKS_SCHEMA, poolSize), WEBHOOKS_SCHEMA) });
}

export type WebhooksDb = PrismaClient;
