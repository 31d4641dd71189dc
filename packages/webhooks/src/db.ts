import { pgAdapter, pgPool } from '@pay/kit';
import { PrismaClient } from './generated/prisma/client';

/** Postgres schema owned by this package. */
export const WEBHOOKS_SCHEMA = 'webhooks';

export function createWebhooksDb(databaseUrl: string, poolSize = 5): PrismaClient {
  return new PrismaClient({ adapter: pgAdapter(pgPool(databaseUrl, WEBHOOKS_SCHEMA, poolSize), WEBHOOKS_SCHEMA) });
}

export type WebhooksDb = PrismaClient;

/** Any service's Prisma client or transaction, or `pgSql(pool)`: every table is named with its schema. */
export type { Sql, SqlWithTransactions } from '@pay/kit';
