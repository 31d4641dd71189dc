import { createDb, tablesOf, type Db, type Kysely, type Queries } from '@pay/db';
import type { DB } from './generated/kysely/tables';
import { PrismaClient } from './generated/prisma/client';

/** Postgres schema owned by this package. */
export const ACCOUNTS_SCHEMA = 'accounts';

/**
 * A client of its own on the accounts schema, for tests and the bench that have no service's
 * client at hand. The services never make one: every function of this package runs on the
 * caller's client or transaction (`Queries`, `Transactions`).
 */
export function createAccountsDb(databaseUrl: string, poolSize = 5): AccountsDb {
  return createDb<PrismaClient, DB>(PrismaClient, { url: databaseUrl, schema: ACCOUNTS_SCHEMA, poolSize });
}

export type AccountsDb = Db<PrismaClient, DB>;

/**
 * This package's tables on the caller's client or transaction (its `$kysely`: any service's,
 * or the webhook worker's): every table qualified with the `accounts` schema, since the
 * caller's search_path is its own. Only this package's stores (src/store/) name the tables.
 */
export const accountTables = (on: Queries): Kysely<DB> => tablesOf<DB>(on, ACCOUNTS_SCHEMA);
