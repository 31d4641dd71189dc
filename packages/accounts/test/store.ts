// The accounts tables as the services' tests read them: named here, in the owner's store, and
// nowhere else (scripts/dependency-rules.test.ts).
import type { Queries } from '@pay/db';
import { accountTables } from '../src/db';

/** A merchant's row joined with each of its keys' rows, every column as stored (to show what is at rest). */
export function merchantRowsAtRest(db: Queries, merchantId: string): Promise<Record<string, unknown>[]> {
  return accountTables(db)
    .selectFrom('merchants as m')
    .innerJoin('api_keys as k', 'k.merchant_id', 'm.id')
    .selectAll('m')
    .select(['k.key_hash', 'k.key_prefix'])
    .where('m.id', '=', merchantId)
    .execute();
}

/** The CSRF tokens of the merchant's console sessions still stored (expired or not). */
export async function storedConsoleSessionTokens(db: Queries, merchantId: string): Promise<string[]> {
  const rows = await accountTables(db).selectFrom('console_sessions').select('csrf_token').where('merchant_id', '=', merchantId).execute();
  return rows.map((r) => r.csrf_token);
}
