import type { KeyResolver, ResolvedKey, SecretBox } from '@pay/auth';
import type { AccountsDb } from './db';

const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * Resolves API keys for the auth middleware of every service: one indexed lookup by hash
 * per request, joined with the merchant's status and sealed HMAC secret. Nothing is cached,
 * so a revoked key or a regenerated secret takes effect with the very next request.
 */
export function accountsKeyResolver(db: AccountsDb, box: SecretBox): KeyResolver {
  const lastTouched = new Map<string, number>();
  return {
    async resolve(keyHash: string): Promise<ResolvedKey | null> {
      const key = await db.apiKey.findUnique({
        where: { keyHash },
        select: { id: true, merchantId: true, isTestKey: true, revokedAt: true, merchant: { select: { status: true, hmacSecretEnc: true } } },
      });
      if (!key) return null;
      if (!key.revokedAt) touch(db, lastTouched, key.id);
      return {
        keyId: key.id,
        merchantId: key.merchantId,
        isTestKey: key.isTestKey,
        revokedAt: key.revokedAt,
        merchantActive: key.merchant.status === 'Active',
        hmacSecret: async () => box.open(key.merchant.hmacSecretEnc),
      };
    },
  };
}

/** `lastUsedAt` is informative, so it is written at most once a minute per key and never awaited. */
function touch(db: AccountsDb, lastTouched: Map<string, number>, keyId: string): void {
  const now = Date.now();
  if (now - (lastTouched.get(keyId) ?? 0) < LAST_USED_RESOLUTION_MS) return;
  lastTouched.set(keyId, now);
  if (lastTouched.size > 10_000) lastTouched.clear();
  db.apiKey.update({ where: { id: keyId }, data: { lastUsedAt: new Date(now) } }).catch(() => undefined);
}
