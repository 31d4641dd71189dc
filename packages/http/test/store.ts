// The idempotency_keys table as this package's tests read and set it: named here, in the
// owner's store, and nowhere else.
import { sql } from 'kysely';
import { tablesOf, type Queries } from '@pay/db';
import type { DB } from '../src/generated/kysely/tables';

const kit = (db: Queries) => tablesOf<DB>(db, 'kit');

/** A claim's status and how long ago it was last refreshed, or null. */
export async function claimRow(db: Queries, scope: string, key: string): Promise<{ status: string; age_ms: number } | null> {
  const row = await kit(db)
    .selectFrom('idempotency_keys')
    .select(['status', sql<number>`(extract(epoch FROM now() - ${sql.ref('locked_at')}) * 1000)::int`.as('age_ms')])
    .where('scope', '=', scope)
    .where('key', '=', key)
    .executeTakeFirst();
  return row ?? null;
}

/** What a process killed mid-request leaves: its claim, last refreshed `ms` ago. */
export async function ageClaim(db: Queries, scope: string, key: string, ms: number): Promise<void> {
  await kit(db)
    .updateTable('idempotency_keys')
    .set({ locked_at: sql`now() - make_interval(secs => ${ms / 1000})` })
    .where('scope', '=', scope)
    .where('key', '=', key)
    .execute();
}

/** The stored answer's column as text, exactly as at rest. */
export async function storedAnswerText(db: Queries, scope: string, key: string): Promise<string> {
  const row = await kit(db).selectFrom('idempotency_keys').select(sql<string>`response_body::text`.as('body')).where('scope', '=', scope).where('key', '=', key).executeTakeFirstOrThrow();
  return row.body;
}

/** Finished keys made at these times. */
export async function insertDoneKeys(db: Queries, scope: string, keys: { key: string; at: Date }[]): Promise<void> {
  await kit(db)
    .insertInto('idempotency_keys')
    .values(keys.map(({ key, at }) => ({ scope, key, fingerprint: 'f', status: 'done', created_at: at, locked_at: at })))
    .execute();
}

/** The keys of a scope, in order. */
export async function keysOf(db: Queries, scope: string): Promise<string[]> {
  const rows = await kit(db).selectFrom('idempotency_keys').select('key').where('scope', '=', scope).orderBy('key').execute();
  return rows.map((r) => r.key);
}

/**
 * What a kill -9 after a request's write leaves behind, for the key's claims in any scope: the
 * key claimed, the answer never stored, the claim last refreshed a minute ago (so the next retry
 * takes it over). The number of claims reset.
 */
export async function abandonClaim(db: Queries, key: string): Promise<number> {
  const reset = await kit(db)
    .updateTable('idempotency_keys')
    .set({ status: 'in_progress', response_status: null, response_body: null, locked_at: new Date(Date.now() - 60_000) })
    .where('key', '=', key)
    .executeTakeFirst();
  return Number(reset.numUpdatedRows);
}
