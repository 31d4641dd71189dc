import { createDb, tablesOf, type DatabasePooling, type Db, type Kysely, type Queries } from '@pay/db';
import type { DB } from './generated/kysely/tables';
import { PrismaClient } from './generated/prisma/client';

/** Postgres schema owned by this package. */
export const WEBHOOKS_SCHEMA = 'webhooks';

/**
 * A client of this package's own, for a process whose own tables are these (the webhook
 * worker), and until invoicing passes its own client to this package's functions.
 */
export function createWebhooksDb(databaseUrl: string, poolSize = 5, pooling: DatabasePooling = 'session'): WebhooksDb {
  return createDb<PrismaClient, DB>(PrismaClient, { url: databaseUrl, schema: WEBHOOKS_SCHEMA, poolSize, pooling });
}

export type WebhooksDb = Db<PrismaClient, DB>;

/** The caller's client or transaction (see @pay/db `Queries`): every table is named with its schema. */
export type { Queries, Transactions } from '@pay/db';

/**
 * This package's tables on the caller's client or transaction (its `$kysely`), qualified with
 * the `webhooks` schema, since the caller's search_path is its own.
 */
export const webhookTables = (on: Queries): Kysely<DB> => tablesOf<DB>(on, WEBHOOKS_SCHEMA);
