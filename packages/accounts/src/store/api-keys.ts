import { randomUUID } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { Queries } from '@pay/db';
import { accountTables } from '../db';
import type { ApiKey as ApiKeyRow } from '../generated/kysely/tables';

/** An API key as the services see it: the row of `accounts.api_keys`, named for code. */
export interface ApiKey {
  id: string;
  merchantId: string;
  name: string;
  /** SHA-256 (hex) of the whole key value; the lookup index. */
  keyHash: string;
  /** First characters of the key, safe to show in listings. */
  keyPrefix: string;
  isTestKey: boolean;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

/** The one place an api_keys row becomes an `ApiKey`: a renamed column fails the type check here. */
function apiKeyOf(r: Selectable<ApiKeyRow>): ApiKey {
  return {
    id: r.id,
    merchantId: r.merchant_id,
    name: r.name,
    keyHash: r.key_hash,
    keyPrefix: r.key_prefix,
    isTestKey: r.is_test_key,
    createdAt: r.created_at,
    lastUsedAt: r.last_used_at,
    revokedAt: r.revoked_at,
  };
}

export async function insertApiKey(
  on: Queries,
  k: { merchantId: string; name: string; keyHash: string; keyPrefix: string; isTestKey: boolean },
  now: Date,
): Promise<ApiKey> {
  const row = await accountTables(on)
    .insertInto('api_keys')
    .values({ id: randomUUID(), merchant_id: k.merchantId, name: k.name, key_hash: k.keyHash, key_prefix: k.keyPrefix, is_test_key: k.isTestKey, created_at: now })
    .returningAll()
    .executeTakeFirstOrThrow();
  return apiKeyOf(row);
}

/**
 * The key with this hash, joined with its merchant's status and sealed HMAC secret: one
 * indexed lookup, one round trip.
 */
export function keyByHash(on: Queries, keyHash: string) {
  return accountTables(on)
    .selectFrom('api_keys as k')
    .innerJoin('merchants as m', 'm.id', 'k.merchant_id')
    .select(['k.id', 'k.merchant_id', 'k.is_test_key', 'k.revoked_at', 'm.status as merchant_status', 'm.hmac_secret_enc'])
    .where('k.key_hash', '=', keyHash)
    .executeTakeFirst();
}

export async function setKeyLastUsed(on: Queries, keyId: string, at: Date): Promise<void> {
  await accountTables(on).updateTable('api_keys').set({ last_used_at: at }).where('id', '=', keyId).execute();
}

/** A page of the merchant's keys, oldest first, and how many it has. */
export async function merchantKeys(on: Queries, merchantId: string, page: number, pageSize: number): Promise<{ items: ApiKey[]; totalCount: number }> {
  const t = accountTables(on);
  const [rows, count] = await Promise.all([
    t.selectFrom('api_keys').selectAll().where('merchant_id', '=', merchantId).orderBy('created_at', 'asc').orderBy('id', 'asc').offset((page - 1) * pageSize).limit(pageSize).execute(),
    t.selectFrom('api_keys').select((eb) => eb.fn.countAll<string>().as('n')).where('merchant_id', '=', merchantId).executeTakeFirstOrThrow(),
  ]);
  return { items: rows.map(apiKeyOf), totalCount: Number(count.n) };
}

/**
 * Locks every key of the merchant (inside the caller's transaction), so two revocations
 * cannot both see the other's key as still active.
 */
export async function lockMerchantKeys(tx: Queries, merchantId: string): Promise<void> {
  await accountTables(tx).selectFrom('api_keys').select('id').where('merchant_id', '=', merchantId).forUpdate().execute();
}

export async function merchantKey(on: Queries, merchantId: string, keyId: string): Promise<ApiKey | undefined> {
  const row = await accountTables(on).selectFrom('api_keys').selectAll().where('id', '=', keyId).where('merchant_id', '=', merchantId).executeTakeFirst();
  return row && apiKeyOf(row);
}

/** How many of the merchant's keys other than `keyId` are not revoked. */
export async function otherActiveKeys(on: Queries, merchantId: string, keyId: string): Promise<number> {
  const { n } = await accountTables(on)
    .selectFrom('api_keys')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('merchant_id', '=', merchantId)
    .where('revoked_at', 'is', null)
    .where('id', '<>', keyId)
    .executeTakeFirstOrThrow();
  return Number(n);
}

export async function markRevoked(on: Queries, keyId: string, at: Date): Promise<ApiKey> {
  const row = await accountTables(on).updateTable('api_keys').set({ revoked_at: at }).where('id', '=', keyId).returningAll().executeTakeFirstOrThrow();
  return apiKeyOf(row);
}
