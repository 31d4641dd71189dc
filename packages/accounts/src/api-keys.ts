import { ApiError } from '@pay/schemas';
import { generateApiKey } from '@pay/auth';
import type { Queries, Transactions } from '@pay/db';
import type { AccountKeys } from './key-cache';
import { insertApiKey, lockMerchantKeys, markRevoked, merchantKey, merchantKeys, otherActiveKeys, setKeyLastUsed, type ApiKey } from './store/api-keys';

export { keyByHash } from './store/api-keys';
export type { ApiKey } from './store/api-keys';

/**
 * Merchants' API keys (`accounts.api_keys`, statements in store/api-keys.ts): merchants (their
 * first key at registration) and the key resolver call the functions below, on the caller's
 * client or transaction.
 */

/** A new key of the merchant, in the caller's client or transaction; its plaintext value is returned once, never stored. */
export async function createApiKey(on: Queries, merchantId: string, input: { name: string; isTestKey: boolean }): Promise<{ apiKey: ApiKey; apiKeyValue: string }> {
  const key = generateApiKey(input.isTestKey ? 'test' : 'live');
  const apiKey = await insertApiKey(on, { merchantId, name: input.name, keyHash: key.hash, keyPrefix: key.prefix, isTestKey: input.isTestKey }, new Date());
  return { apiKey, apiKeyValue: key.value };
}

/** Notes when a key was last used. */
export async function touchApiKey(on: Queries, keyId: string, at: Date): Promise<void> {
  await setKeyLastUsed(on, keyId, at);
}

/** A page of the merchant's keys, oldest first, and how many it has. */
export function listApiKeys(on: Queries, merchantId: string, page: number, pageSize: number): Promise<{ items: ApiKey[]; totalCount: number }> {
  return merchantKeys(on, merchantId, page, pageSize);
}

/**
 * Revokes at once: after the commit the change is announced to every process of every
 * service, which drop the merchant's cached keys, so the next request with this key is
 * refused everywhere (and within one second even if the announcement is lost). The last
 * active key cannot be revoked, or the merchant would lock itself out of the API for good.
 */
export async function revokeApiKey(
  on: Transactions,
  keys: Pick<AccountKeys, 'changed'>,
  merchantId: string,
  keyId: string,
  /** The caller's permission check on the key it found (e.g. a test key may not revoke a live one). */
  authorize: (key: ApiKey) => void = () => undefined,
): Promise<ApiKey> {
  const revoked = await on.$transaction(async (tx) => {
    // Lock the merchant's keys so two concurrent revocations cannot both pass the check below.
    await lockMerchantKeys(tx, merchantId);
    const key = await merchantKey(tx, merchantId, keyId);
    if (!key) throw new ApiError('NOT_FOUND', `API key ${keyId} not found`);
    authorize(key);
    if (key.revokedAt) return key;
    if ((await otherActiveKeys(tx, merchantId, keyId)) === 0) {
      throw new ApiError('INVALID_STATE', 'This is the last active API key; create another key before revoking it');
    }
    return markRevoked(tx, keyId, new Date());
  });
  await keys.changed(merchantId);
  return revoked;
}
