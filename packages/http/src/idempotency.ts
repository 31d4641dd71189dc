import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import { ApiError } from '@pay/schemas';
import { sql } from 'kysely';
import { isDatabaseUnavailable, preparedStatement, tablesOf, type Kysely, type Queries } from '@pay/db';
import { deleteInBatches } from '@pay/runtime';
import type { DB } from './generated/kysely/tables';

/** Stripe semantics: same key + same request within 24 h → first answer. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * A claim not refreshed for this long belongs to a request that died mid-way (its process was
 * killed, or it lost its database); a retry may take it over. This is how long a client's
 * retry after a crash can be answered 409 IDEMPOTENCY_IN_PROGRESS at most.
 */
export const IDEMPOTENCY_LOCK_MS = 10 * 1000;
/** How often a running request refreshes its claim: five beats fit in IDEMPOTENCY_LOCK_MS. */
export const IDEMPOTENCY_HEARTBEAT_MS = 2 * 1000;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** An answer as sent: status and the exact JSON text. */
export interface StoredReply {
  status: number;
  text: string;
}

export type Claim =
  /** `resumed`: the key was taken over from an earlier request that never finished (see IdempotentRun). */
  | { kind: 'claimed'; resumed: boolean }
  | { kind: 'replay'; status: number; text: string }
  | { kind: 'mismatch' }
  | { kind: 'in_progress' };

export interface IdempotencyStore {
  claim(scope: string, key: string, fingerprint: string): Promise<Claim>;
  /** Keeps a running request's claim from looking abandoned. */
  touch(scope: string, key: string): Promise<void>;
  complete(scope: string, key: string, reply: StoredReply): Promise<void>;
  release(scope: string, key: string): Promise<void>;
}

/** Seals stored answers: some carry credentials (a new API key, an HMAC secret). */
export interface Sealer {
  seal(plain: string): string;
  open(envelope: string): string;
}

/**
 * The table, owned by this package (Postgres schema `kit`, the name it had in kit; see
 * prisma/schema.prisma), on the caller's client: qualified with its schema, since the
 * caller's search_path is its own.
 */
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

export function fingerprintOf(req: Request): string {
  const hash = createHash('sha256').update(`${req.method} ${req.originalUrl.split('?')[0]}\n`);
  if (req.uploads) {
    // A multipart body differs on every send (the client draws a new boundary): the same
    // form is its text fields and its files' bytes, so that is what is compared.
    const fields = Object.entries((req.body ?? {}) as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1));
    hash.update(JSON.stringify(fields));
    for (const [name, file] of Object.entries(req.uploads).sort(([a], [b]) => (a < b ? -1 : 1))) {
      hash.update(`\n${name}:${file ? createHash('sha256').update(file.bytes).digest('hex') : '-'}`);
    }
    return hash.digest('hex');
  }
  return hash.update(req.rawBody ?? Buffer.alloc(0)).digest('hex');
}

/**
 * What a handler learns of its request's Idempotency-Key. `resumed`: the key was taken over
 * from an earlier request that never finished (its process died, or it lost its database
 * mid-way), so what that request wrote may exist without its answer having been stored. A
 * create that can find what it made by the key (an invoice, a withdrawal) returns that instead
 * of making another.
 */
export interface IdempotentRun {
  key: string;
  resumed: boolean;
}

/**
 * Runs `run` at most once per Idempotency-Key. Answers below 500 are kept and replayed
 * (with `Idempotent-Replayed: true`); other failures release the key so the client can retry,
 * except a lost database: the request may have written before it failed, so its claim is left
 * to go stale (IDEMPOTENCY_LOCK_MS) and the retry then resumes it. While `run` works, its claim
 * is refreshed every IDEMPOTENCY_HEARTBEAT_MS, so only a request that died is ever taken over.
 */
export async function withIdempotency(
  store: IdempotencyStore,
  scope: string,
  req: Request,
  res: Response,
  run: (idempotency?: IdempotentRun) => Promise<StoredReply>,
): Promise<StoredReply> {
  const key = req.header('idempotency-key');
  if (key === undefined) return run();
  if (!KEY_PATTERN.test(key)) {
    throw new ApiError('VALIDATION_ERROR', 'Idempotency-Key must be 1-255 printable ASCII characters', [
      { field: 'Idempotency-Key', message: 'must be 1-255 printable ASCII characters' },
    ]);
  }
  const claim = await store.claim(scope, key, fingerprintOf(req));
  switch (claim.kind) {
    case 'mismatch':
      throw new ApiError('IDEMPOTENCY_CONFLICT', 'This Idempotency-Key was already used with a different request');
    case 'in_progress':
      throw new ApiError('IDEMPOTENCY_IN_PROGRESS', 'A request with this Idempotency-Key is still being processed; retry shortly');
    case 'replay':
      res.setHeader('Idempotent-Replayed', 'true');
      return { status: claim.status, text: claim.text };
    case 'claimed':
      break;
  }
  // A beat that fails (the database away) is no matter: the next one, or the answer, follows.
  const heartbeat = setInterval(() => void store.touch(scope, key).catch(() => undefined), IDEMPOTENCY_HEARTBEAT_MS);
  heartbeat.unref();
  let result: StoredReply;
  try {
    result = await run({ key, resumed: claim.resumed });
  } catch (err) {
    clearInterval(heartbeat);
    if (err instanceof ApiError && err.status < 500) {
      await store.complete(scope, key, { status: err.status, text: JSON.stringify(errorPayload(err)) });
    } else if (!isDatabaseUnavailable(err)) {
      await store.release(scope, key);
    }
    throw err;
  }
  clearInterval(heartbeat);
  await store.complete(scope, key, result);
  return result;
}

/** Business refusals are replayed too, so a retried request gets the same verdict. */
function errorPayload(err: ApiError): unknown {
  return { __error: { code: err.code, message: err.message, details: err.details } };
}

export function replayedError(reply: StoredReply): ApiError | null {
  if (!reply.text.startsWith('{"__error"')) return null;
  const e = (JSON.parse(reply.text) as { __error?: { code: ApiError['code']; message: string; details?: ApiError['details'] } } | null)?.__error;
  return e ? new ApiError(e.code, e.message, e.details) : null;
}
