import { pgAdapter } from '@pay/kit';
import { PrismaClient } from './generated/prisma/client';

/** Postgres schema owned by this package. */
export const WEBHOOKS_SCHEMA = 'webhooks';

export function createWebhooksDb(databaseUrl: string, poolSize = 5): PrismaClient {
  return new PrismaClient({ adapter: pgAdapter(databaseUrl, WEBHOOKS_SCHEMA, poolSize) });
}

export type WebhooksDb = PrismaClient;

/**
 * What this package's functions need of a client: raw SQL on any service's Prisma client or
 * interactive transaction. Every table is named with its schema, so the caller's search_path
 * does not matter.
 */
export interface Sql {
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T>;
  $executeRawUnsafe(query: string, ...values: unknown[]): Promise<number>;
}

export interface SqlWithTransactions extends Sql {
  $transaction<T>(fn: (tx: Sql) => Promise<T>): Promise<T>;
}
