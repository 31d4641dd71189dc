import { createDb, type DatabasePooling, type Db, type Kysely, type Tx } from '@pay/db';
import type { DB } from './generated/kysely/tables';
import { PrismaClient } from './generated/prisma/client';

export const CRYPTO_SCHEMA = 'crypto';

export type * as Tables from './generated/kysely/tables';

/**
 * What a store function takes: the client (`deps.db`) outside a transaction, or `tx` inside
 * `db.$transaction`. Stores run their statements on its `$kysely` (prisma-kysely's tables of
 * prisma/schema.prisma), so the same function runs on the pool or in the caller's transaction.
 */
export type CryptoQueries = { readonly $kysely: Kysely<DB> };

export interface CryptoDatabase {
  db: CryptoDb;
  /** Ends the client and its pool. */
  close(): Promise<void>;
}

export function createCryptoDatabase(databaseUrl: string, poolSize = 10, pooling: DatabasePooling = 'session'): CryptoDatabase {
  const db = createDb<PrismaClient, DB>(PrismaClient, { url: databaseUrl, schema: CRYPTO_SCHEMA, poolSize, pooling });
  return { db, close: () => db.$close() };
}

export type CryptoDb = Db<PrismaClient, DB>;
/** Inside `db.$transaction`: `tx.$kysely` on the transaction's connection. */
export type CryptoTx = Tx<PrismaClient, DB>;
export type { DB } from "./generated/kysely/tables";
