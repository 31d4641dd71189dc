import type { KeyResolver, ResolvedKey, SecretBox } from '@pay/auth';
import type { Queries } from '@pay/db';
import { keyByHash, touchApiKey } from './api-keys';

const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * Resolves API keys from the accounts tables (`keyByHash`: one indexed lookup joined with the
 * merchant's status and sealed HMAC secret). Services put `CachedKeyResolver` (key-cache.ts)
 * in front of it, so this runs about once a second per key and process.
 */
export function accountsKeyResolver(db: Queries, box: SecretBox): KeyResolver {
  const lastTouched = new Map<string, number>();
  return {
    async resolve(keyHash: string): Promise<ResolvedKey | null> {
      const key = await keyByHash(db, keyHash);
      if (!key) return null;
      if (!key.revoked_at) touch(db, lastTouched, key.id);
      return {
        keyId: key.id,
        merchantId: key.merchant_id,
        isTestKey: key.is_test_key,
        revokedAt: key.revoked_at,
        merchantActive: key.merchant_status === 'Active',
        hmacSecret: async () => box.open(key.hmac_secret_enc),
      };
    },
  };
}

/** `lastUsedAt` is informative, so it is written at most once a minute per key and never awaited. */
function touch(db: Queries, lastTouched: Map<string, number>, keyId: string): void {
  const now = Date.now();
  if (now - (lastTouched.get(keyId) ?? 0) < LAST_USED_RESOLUTION_MS) return;
  lastTouched.set(keyId, now);
  if (lastTouched.size > 10_000) lastTouched.clear();
  touchApiKey(db, keyId, new Date(now)).catch(() => undefined);
}
