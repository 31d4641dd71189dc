import { pgAdapter, pgPool, typedSqlIn, type Kysely, type Sql } from '@pay/db';
import type { DB } from './generated/kysely/tables';
import { PrismaClient } from './generated/prisma/client';

/** Postgres schema owned by this package. */
export const ACCOUNTS_SCHEMA = 'accounts';

export function createAccountsDb(databaseUrl: string, poolSize = 5): PrismaClient {
  return new PrismaClient({ adapter: pgAdapter(pgPool(databaseUrl, ACCOUNTS_SCHEMA, poolSize), ACCOUNTS_SCHEMA) });
}

export type AccountsDb = PrismaClient;
export { Prisma } from './generated/prisma/client';
export type { Merchant, ApiKey } from './generated/prisma/client';

/**
 * This package's tables through the typed builder, on the caller's client or transaction
 * (this package's Prisma client, or another service's `Sql`, as the webhook worker's
 * `pgSql(pool)`): every table qualified with the `accounts` schema, since the caller's
 * search_path may be its own.
 */
export const accountTables = (sql: Sql): Kysely<DB> => typedSqlIn<DB>(sql).withSchema(ACCOUNTS_SCHEMA);
