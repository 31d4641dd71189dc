import { pgAdapter, pgPool } from '@pay/kit';
import { PrismaClient } from './generated/prisma/client';

/** Postgres schema owned by this package. */
export const ACCOUNTS_SCHEMA = 'accounts';

export function createAccountsDb(databaseUrl: string, poolSize = 5): PrismaClient {
  return new PrismaClient({ adapter: pgAdapter(pgPool(databaseUrl, ACCOUNTS_SCHEMA, poolSize), ACCOUNTS_SCHEMA) });
}

export type AccountsDb = PrismaClient;
export { Prisma } from './generated/prisma/client';
export type { Merchant, ApiKey } from './generated/prisma/client';
