import { pgAdapter, pgPool, typedSqlIn, type Kysely, type Sql } from '@pay/db';
import type { DB } from './generated/kysely/tables';
import { PrismaClient } from './generated/prisma/client';

/** Postgres schema owned by this package. */
export const WEBHOOKS_SCHEMA = 'webhooks';

export function createWebhooksDb(databaseUrl: string, poolSize = 5): PrismaClient {
  return new PrismaClient({ adapter: pgAdapter(pgPool(databaseUrl, WEBHOOKS_SCHEMA, poolSize), WEBHOOKS_SCHEMA) });
}

export type WebhooksDb = PrismaClient;

/** Any service's Prisma client or transaction, or `pgSql(pool)`: every table is named with its schema. */
export type { Sql, SqlWithTransactions } from '@pay/db';

/**
 * This package's tables through the typed builder, on the caller's client or transaction
 * (any service's Prisma client or transaction, or `pgSql(pool)`): every table qualified with
 * the `webhooks` schema, since the caller's search_path is its own.
 */
export const webhookTables = (sql: Sql): Kysely<DB> => typedSqlIn<DB>(sql).withSchema(WEBHOOKS_SCHEMA);
