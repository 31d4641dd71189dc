import { disconnectWithPool, pgAdapter, pgPool, typedSql, typedSqlIn, type Kysely, type Sql } from '@pay/db';
import type { DB } from './generated/kysely/tables';
import { PrismaClient } from './generated/prisma/client';

export const CRYPTO_SCHEMA = 'crypto';

/** The service's tables for hand-written SQL, typed from prisma/schema.prisma. */
export type CryptoTables = Kysely<DB>;
export type * as Tables from './generated/kysely/tables';

/** The typed builder inside a Prisma interactive transaction of this service. */
export const tablesIn = (tx: Sql): CryptoTables => typedSqlIn<DB>(tx);

export interface CryptoDatabase {
  db: PrismaClient;
  /**
   * The typed builder over the same connections, outside transactions: the hot paths (invoice
   * create and get, withdrawal create) and the statements Prisma cannot say.
   */
  tables: CryptoTables;
  /** Ends the client and the pool (see disconnectWithPool). */
  close(): Promise<void>;
}

export function createCryptoDatabase(databaseUrl: string, poolSize = 10): CryptoDatabase {
  const pool = pgPool(databaseUrl, CRYPTO_SCHEMA, poolSize);
  const db = new PrismaClient({ adapter: pgAdapter(pool, CRYPTO_SCHEMA) });
  return { db, tables: typedSql<DB>(pool), close: () => disconnectWithPool(db, pool) };
}

export type CryptoDb = PrismaClient;
export { Prisma } from './generated/prisma/client';
