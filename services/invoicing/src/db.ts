import type pg from 'pg';
import { disconnectWithPool, pgAdapter, pgPool } from '@pay/kit';
import { PrismaClient } from './generated/prisma/client';

/** Postgres schema owned by this service. */
export const INVOICING_SCHEMA = 'invoicing';

export type InvoicingDb = PrismaClient;
export type { Prisma } from './generated/prisma/client';

/**
 * One pool, two ways in: the Prisma client (transactions, the rest) and the pool itself for
 * the hot paths (create, get, list, analytics), where raw `pg` costs a third of the CPU of a
 * Prisma raw query per statement (measured: ~60 µs against ~130 µs).
 */
export function createInvoicingDb(databaseUrl: string, poolSize = 10): { db: InvoicingDb; sql: pg.Pool; close: () => Promise<void> } {
  const sql = pgPool(databaseUrl, INVOICING_SCHEMA, poolSize);
  const db = new PrismaClient({ adapter: pgAdapter(sql, INVOICING_SCHEMA) });
  return {
    db,
    sql,
    close: () => disconnectWithPool(db, sql),
  };
}
