import { TRANSACTION_OPTIONS } from '@pay/db';
import { ApiError } from '@pay/schemas';
import { generateApiKey } from '@pay/auth';
import { accountTables, type AccountsDb, type ApiKey, type Prisma } from './db';
import type { AccountKeys } from './key-cache';

/**
 * The one owner of `accounts.api_keys`: merchants (their first key at registration) and the
 * key resolver call the functions below.
 */

type Tx = Pick<AccountsDb, 'apiKey'> | Prisma.TransactionClient;

/** A new key of the merchant, in the caller's client or transaction; its plaintext value is returned once, never stored. */
export async function createApiKey(db: Tx, merchantId: string, input: { name: string; isTestKey: boolean }): Promise<{ apiKey: ApiKey; apiKeyValue: string }> {
  const key = generateApiKey(input.isTestKey ? 'test' : 'live');
  const apiKey = await db.apiKey.create({
    data: { merchantId, name: input.name, keyHash: key.hash, keyPrefix: key.prefix, isTestKey: input.isTestKey },
  });
  return { apiKey, apiKeyValue: key.value };
}

/**
 * The key with this hash, joined with its merchant's status and sealed HMAC secret: one
 * indexed lookup, one round trip (the client's relation select costs two).
 */
export function keyByHash(db: AccountsDb, keyHash: string) {
  return accountTables(db)
    .selectFrom('api_keys as k')
    .innerJoin('merchants as m', 'm.id', 'k.merchant_id')
    .select(['k.id', 'k.merchant_id', 'k.is_test_key', 'k.revoked_at', 'm.status as merchant_status', 'm.hmac_secret_enc'])
    .where('k.key_hash', '=', keyHash)
    .executeTakeFirst();
}

/** Notes when a key was last used. */
export async function touchApiKey(db: AccountsDb, keyId: string, at: Date): Promise<void> {
  await db.apiKey.update({ where: { id: keyId }, data: { lastUsedAt: at } });
}

export async function listApiKeys(db: AccountsDb, merchantId: string, page: number, pageSize: number) {
  const where = { merchantId };
  const [items, totalCount] = await db.$transaction((tx) =>
    Promise.all([tx.apiKey.findMany({ where, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], skip: (page - 1) * pageSize, take: pageSize }), tx.apiKey.count({ where })]),
  );
  return { items, totalCount };
}

/**
 * Revokes at once: after the commit the change is announced to every process of every
 * service, which drop the merchant's cached keys, so the next request with this key is
 * refused everywhere (and within one second even if the announcement is lost). The last
 * active key cannot be revoked, or the merchant would lock itself out of the API for good.
 */
export async function revokeApiKey(
  db: AccountsDb,
  keys: Pick<AccountKeys, 'changed'>,
  merchantId: string,
  keyId: string,
  /** The caller's permission check on the key it found (e.g. a test key may not revoke a live one). */
  authorize: (key: ApiKey) => void = () => undefined,
): Promise<ApiKey> {
  const revoked = await db.$transaction(async (tx) => {
    // Lock the merchant's keys so two concurrent revocations cannot both pass the check below.
    await accountTables(tx).selectFrom('api_keys').select('id').where('merchant_id', '=', merchantId).forUpdate().execute();
    const key = await tx.apiKey.findFirst({ where: { id: keyId, merchantId } });
    if (!key) throw new ApiError('NOT_FOUND', `API key ${keyId} not found`);
    authorize(key);
    if (key.revokedAt) return key;
    const others = await tx.apiKey.count({ where: { merchantId, revokedAt: null, id: { not: keyId } } });
    if (others === 0) {
      throw new ApiError('INVALID_STATE', 'This is the last active API key; create another key before revoking it');
    }
    return tx.apiKey.update({ where: { id: keyId }, data: { revokedAt: new Date() } });
  }, TRANSACTION_OPTIONS);
  await keys.changed(merchantId);
  return revoked;
}
