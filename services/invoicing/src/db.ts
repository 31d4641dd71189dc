import { createDb, type DatabasePooling, type Db, type Kysely, type Tx } from '@pay/db';
import type { DB } from './generated/kysely/tables';
import { PrismaClient } from './generated/prisma/client';

/** Postgres schema owned by this service. */
export const INVOICING_SCHEMA = 'invoicing';

/**
 * The process's one client: Prisma on one pool, with `db.$kysely` (the typed builder over
 * invoicing's tables, prisma-kysely) and `db.$transaction(async (tx) => …)`, the one way to
 * open a transaction. The accounts and webhooks packages run their statements on it too.
 */
export type InvoicingDb = Db<PrismaClient, DB>;
/** Inside `db.$transaction`: `tx.$kysely` on the transaction's connection. */
export type InvoicingTx = Tx<PrismaClient, DB>;
/**
 * What a store function takes: the client outside a transaction (`deps.db`), or `tx` inside
 * one. It runs its statements on `on.$kysely`, so the same function serves both.
 */
export interface InvoicingQueries {
  readonly $kysely: Kysely<DB>;
}
export type * as Tables from './generated/kysely/tables';

export function createInvoicingDb(databaseUrl: string, poolSize = 10, pooling: DatabasePooling = 'session'): InvoicingDb {
  return createDb<PrismaClient, DB>(PrismaClient, { url: databaseUrl, schema: INVOICING_SCHEMA, poolSize, pooling });
}
