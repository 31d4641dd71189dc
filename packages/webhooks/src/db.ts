import { pgAdapter } from '@pay/kit';
import { PrismaClient } from './generated/prisma/client';

/** Postgres schema owned by this package. */
export const WEBHOOKS_SCHEMA = 'webhooks';

export function createWebhooksDb(databaseUrl: string, poolSize = 5): PrismaClient {
  return new PrismaClient({ adapter: pgAdapter(databaseUrl, WEBHOOKS_SCHEMA, poolSize) });
}

export type WebhooksDb = PrismaClient;
