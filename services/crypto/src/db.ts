import type pg from 'pg';
import { disconnectWithPool, pgAdapter, pgPool } from '@pay/kit';
import { PrismaClient } from './generated/prisma/client';

export const CRYPTO_SCHEMA = 'crypto';

export interface CryptoDatabase {
  db: PrismaClient;
  /** The same connections, for hot-path queries written in SQL (invoices by id, creation). */
  pool: pg.Pool;
  /** Ends the client and the pool (see disconnectWithPool). */
  close(): Promise<void>;
}

export function createCryptoDatabase(databaseUrl: string, poolSize = 10): CryptoDatabase {
  const pool = pgPool(databaseUrl, CRYPTO_SCHEMA, poolSize);
  const db = new PrismaClient({ adapter: pgAdapter(pool, CRYPTO_SCHEMA) });
  return { db, pool, close: () => disconnectWithPool(db, pool) };
}

export type CryptoDb = PrismaClient;
export { Prisma } from './generated/prisma/client';
