import { createDb, tablesOf, type Db, type Kysely, type Queries } from '@pay/db';
import type { DB } from './generated/kysely/tables';
import { PrismaClient } from './generated/prisma/client';

/** Postgres schema owned by this package. */
export const ACCOUNTS_SCHEMA = 'accounts';

/**
 * This package's own client, on a pool of its own. Still used by the services for the
 * functions below that take an `AccountsDb` (registration, keys, console sessions: Prisma's
 * model API) until those run on the caller's `$kysely` too.
 */
export function createAccountsDb(databaseUrl: string, poolSize = 5): AccountsDb {
  return createDb<PrismaClient, DB>(PrismaClient, { url: databaseUrl, schema: ACCOUNTS_SCHEMA, poolSize });
}

export type AccountsDb = Db<PrismaClient, DB>;
export { Prisma } from './generated/prisma/client';
export type { Merchant, ApiKey } from './generated/prisma/client';

/**
 * This package's tables on the caller's client or transaction (its `$kysely`: this package's
 * client, or any service's, as the webhook worker's): every table qualified with the
 * `accounts` schema, since the caller's search_path may be its own.
 */
export const accountTables = (on: Queries): Kysely<DB> => tablesOf<DB>(on, ACCOUNTS_SCHEMA);
