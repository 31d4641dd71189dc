import { createDb, type Db } from '@pay/db';
import { ACCOUNTS_SCHEMA } from './db';
import type { DB } from './generated/kysely/tables';
import { PrismaClient } from './generated/prisma/client';

/**
 * A client of its own on the accounts schema, for tests and the bench that have no service's
 * client at hand (a chaos stack's database, a bench's set-up). The services never make one:
 * every function of this package runs on the caller's client or transaction (`Queries`,
 * `Transactions`), so the package's index does not load this Prisma client.
 */
export function createAccountsDb(databaseUrl: string, poolSize = 5): AccountsDb {
  return createDb<PrismaClient, DB>(PrismaClient, { url: databaseUrl, schema: ACCOUNTS_SCHEMA, poolSize });
}

export type AccountsDb = Db<PrismaClient, DB>;
