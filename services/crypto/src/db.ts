import { createDb, poolUnder, typedSql, typedSqlIn, type Db, type Kysely, type Sql, type Tx } from '@pay/db';
import type { DB } from './generated/kysely/tables';
import { PrismaClient } from './generated/prisma/client';

export const CRYPTO_SCHEMA = 'crypto';

/** The service's tables for hand-written SQL, typed from prisma/schema.prisma. */
export type CryptoTables = Kysely<DB>;
export type * as Tables from './generated/kysely/tables';

/** The typed builder inside a Prisma interactive transaction of this service. */
export const tablesIn = (tx: Sql): CryptoTables => typedSqlIn<DB>(tx);

export interface CryptoDatabase {
  db: CryptoDb;
  /**
   * The typed builder over the same connections, outside transactions: the hot paths (invoice
   * create and get, withdrawal create) and the statements Prisma cannot say.
   */
  tables: CryptoTables;
  /** Ends the client and the pool (see disconnectWithPool). */
  close(): Promise<void>;
}

export function createCryptoDatabase(databaseUrl: string, poolSize = 10): CryptoDatabase {
  const db = createDb<PrismaClient, DB>(PrismaClient, { url: databaseUrl, schema: CRYPTO_SCHEMA, poolSize });
  return { db, tables: typedSql<DB>(poolUnder(db.$kysely)!), close: () => db.$close() };
}

export type CryptoDb = Db<PrismaClient, DB>;
/** Inside `db.$transaction`: the model API and `tx.$kysely` on the transaction's connection. */
export type CryptoTx = Tx<PrismaClient, DB>;
export { Prisma } from './generated/prisma/client';
