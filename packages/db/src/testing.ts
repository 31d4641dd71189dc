import { createDb, type Db } from './client';
import { PrismaClient } from './generated/test-client/client';
import type { DB } from './generated/test-kysely/tables';

/**
 * For the tests of packages that own tables (queue, webhooks, @pay/http's idempotency): a caller's
 * client as a service would pass it, on a pool whose search_path is `schema`. Its own table
 * (test/schema.prisma) is not there; the package names its tables with `tablesOf`.
 */
export function testDb(schema: string, poolSize = 3): Db<PrismaClient, DB> {
  return createDb<PrismaClient, DB>(PrismaClient, { url: process.env.DATABASE_URL!, schema, poolSize });
}
