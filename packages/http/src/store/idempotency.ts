// The idempotency_keys table (Postgres schema `kit`): every statement on it, as the
// IdempotencyStore every service uses (PgIdempotencyStore) and its pruning.
import { sql } from 'kysely';
import { preparedStatement, tablesOf, type Kysely, type Queries } from '@pay/db';
import { deleteInBatches } from '@pay/runtime';
import type { DB } from '../generated/kysely/tables';
import { IDEMPOTENCY_LOCK_MS, IDEMPOTENCY_TTL_MS, type Claim, type IdempotencyStore, type Sealer, type StoredReply } from '../idempotency';

const kitTables = (db: Queries): Kysely<DB> => tablesOf<DB>(db, 'kit');

/** A moment `ms` before the database's now: ages are measured on the database's clock. */
const agoMs = (ms: number) => sql<Date>`now() - make_interval(secs => ${ms / 1000})`;

/**
 * Claiming and completing run on every keyed create: built and compiled once (`preparedStatement`: on the caller's client, a named statement on its pool),
 * not per request, as a hand-written statement would be.
 * Expired and abandoned claims are taken over in the same statement that claims. `prior`
 * reads the row as it was before the statement: an in-progress one taken over was abandoned.
 */
const CLAIM = preparedStatement((db: Kysely<DB>, p: { scope: string; key: string; fingerprint: string }) =>
  db
    .with('prior', (w) => w.selectFrom('idempotency_keys').select('status').where('scope', '=', p.scope).where('key', '=', p.key))
    .insertInto('idempotency_keys')
    .values({ scope: p.scope, key: p.key, fingerprint: p.fingerprint, status: 'in_progress', created_at: sql`now()`, locked_at: sql`now()` })
    .onConflict((oc) =>
      oc
        .columns(['scope', 'key'])
        .doUpdateSet((eb) => ({
          fingerprint: eb.ref('excluded.fingerprint'),
          status: 'in_progress',
          response_status: null,
          response_body: null,
          created_at: sql`now()`,
          locked_at: sql`now()`,
        }))
        .where((eb) =>
          eb.or([
            eb('idempotency_keys.created_at', '<', agoMs(IDEMPOTENCY_TTL_MS)),
            eb.and([
              eb('idempotency_keys.status', '=', 'in_progress'),
              eb('idempotency_keys.locked_at', '<', agoMs(IDEMPOTENCY_LOCK_MS)),
              eb('idempotency_keys.fingerprint', '=', eb.ref('excluded.fingerprint')),
            ]),
          ]),
        ),
    )
    .returning((eb) =>
      eb.fn
        .coalesce(
          eb.selectFrom('prior').select((p) => p('prior.status', '=', 'in_progress').as('in_progress')),
          eb.lit(false),
        )
        .$castTo<boolean>()
        .as('resumed'),
    ),
);

const COMPLETE = preparedStatement((db: Kysely<DB>, p: { scope: string; key: string; status: number; body: string }) =>
  db
    .updateTable('idempotency_keys')
    // jsonb holding the sealed answer as one JSON string.
    .set({ status: 'done', response_status: p.status, response_body: p.body })
    .where('scope', '=', p.scope)
    .where('key', '=', p.key),
);

/**
 * Postgres-backed store over the shared `kit.idempotency_keys` table, used by every service
 * with its own connection. Scopes start with the service's name: both APIs serve paths such
 * as POST /api/v1/invoices. Claiming is one INSERT … ON CONFLICT, so two concurrent requests
 * with the same key can never both run. Answers are stored sealed, never in plaintext,
 * because a replay must return exactly what the first request returned.
 */
export class PgIdempotencyStore implements IdempotencyStore {
  constructor(
    private readonly db: Queries,
    private readonly sealer: Sealer,
    /** The service's name, e.g. `crypto`. */
    private readonly service: string,
  ) {}

  async claim(requestScope: string, key: string, fingerprint: string): Promise<Claim> {
    const scope = `${this.service}:${requestScope}`;
    const db = kitTables(this.db);
    const rows = await CLAIM(db, { scope, key, fingerprint });
    if (rows.length > 0) return { kind: 'claimed', resumed: rows[0]!.resumed };
    const existing = await db
      .selectFrom('idempotency_keys')
      .select(['fingerprint', 'status', 'response_status', 'response_body'])
      .where('scope', '=', scope)
      .where('key', '=', key)
      .execute();
    const row = existing[0];
    if (!row) return this.claim(requestScope, key, fingerprint); // released between the two statements
    if (row.fingerprint !== fingerprint) return { kind: 'mismatch' };
    if (row.status !== 'done' || row.response_status === null) return { kind: 'in_progress' };
    return { kind: 'replay', status: row.response_status, text: this.sealer.open(row.response_body as string) };
  }

  async touch(requestScope: string, key: string): Promise<void> {
    await kitTables(this.db)
      .updateTable('idempotency_keys')
      .set({ locked_at: sql`now()` })
      .where('scope', '=', `${this.service}:${requestScope}`)
      .where('key', '=', key)
      .where('status', '=', 'in_progress')
      .execute();
  }

  async complete(requestScope: string, key: string, reply: StoredReply): Promise<void> {
    await COMPLETE(kitTables(this.db), { scope: `${this.service}:${requestScope}`, key, status: reply.status, body: JSON.stringify(this.sealer.seal(reply.text)) });
  }

  async release(requestScope: string, key: string): Promise<void> {
    await kitTables(this.db)
      .deleteFrom('idempotency_keys')
      .where('scope', '=', `${this.service}:${requestScope}`)
      .where('key', '=', key)
      .where('status', '=', 'in_progress')
      .execute();
  }
}

/**
 * Forgets answers past their 24 h (kept a day longer, so a claim being taken over at the
 * boundary is never deleted under it). Run from a service's housekeeping loop.
 */
export function pruneIdempotencyKeys(db: Queries, now: Date = new Date()): Promise<number> {
  const before = new Date(now.getTime() - 2 * IDEMPOTENCY_TTL_MS);
  const tables = kitTables(db);
  return deleteInBatches(async (batch) => {
    const res = await tables
      .deleteFrom('idempotency_keys')
      .where(({ eb, refTuple, selectFrom }) =>
        eb(refTuple('scope', 'key'), 'in', selectFrom('idempotency_keys').select(['scope', 'key']).where('created_at', '<', before).limit(batch).$asTuple('scope', 'key')),
      )
      .executeTakeFirst();
    return Number(res.numDeletedRows);
  });
}
