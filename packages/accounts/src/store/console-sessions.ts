import type { Queries } from '@pay/db';
import { accountTables } from '../db';

export async function insertConsoleSession(
  on: Queries,
  s: { tokenHash: string; merchantId: string; keyId: string; csrfToken: string; createdAt: Date; expiresAt: Date },
): Promise<void> {
  await accountTables(on)
    .insertInto('console_sessions')
    .values({ token_hash: s.tokenHash, merchant_id: s.merchantId, key_id: s.keyId, csrf_token: s.csrfToken, created_at: s.createdAt, expires_at: s.expiresAt })
    .execute();
}

/** The session with this cookie hash, with its key's mode and revocation and its merchant's status: one round trip. */
export async function sessionByTokenHash(on: Queries, tokenHash: string) {
  const r = await accountTables(on)
    .selectFrom('console_sessions as s')
    .innerJoin('api_keys as k', 'k.id', 's.key_id')
    .innerJoin('merchants as m', 'm.id', 's.merchant_id')
    .select(['s.merchant_id', 's.key_id', 's.csrf_token', 's.created_at', 's.expires_at', 'k.is_test_key', 'k.revoked_at', 'm.status as merchant_status'])
    .where('s.token_hash', '=', tokenHash)
    .executeTakeFirst();
  return (
    r && {
      merchantId: r.merchant_id,
      keyId: r.key_id,
      csrfToken: r.csrf_token,
      createdAt: r.created_at,
      expiresAt: r.expires_at,
      keyIsTest: r.is_test_key,
      keyRevokedAt: r.revoked_at,
      merchantStatus: r.merchant_status,
    }
  );
}

export async function setSessionExpiry(on: Queries, tokenHash: string, expiresAt: Date): Promise<void> {
  await accountTables(on).updateTable('console_sessions').set({ expires_at: expiresAt }).where('token_hash', '=', tokenHash).execute();
}

export async function deleteSession(on: Queries, tokenHash: string): Promise<void> {
  await accountTables(on).deleteFrom('console_sessions').where('token_hash', '=', tokenHash).execute();
}

/** Deletes the sessions expired at `now`; how many. */
export async function deleteExpiredSessions(on: Queries, now: Date): Promise<number> {
  const r = await accountTables(on).deleteFrom('console_sessions').where('expires_at', '<=', now).executeTakeFirst();
  return Number(r.numDeletedRows);
}
