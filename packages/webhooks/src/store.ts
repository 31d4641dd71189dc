// The webhook worker's reads and writes: turning events into deliveries, claiming due
// deliveries, recording attempts in batches, and the heartbeats that make claims safe. Kept
// here because this package owns the tables; the worker service only orchestrates.
import { sql, type ExpressionBuilder, type Kysely } from 'kysely';
import { preparedStatement } from '@pay/db';
import { webhookTables, type Queries, type Transactions } from './db';
import { AUTO_DISABLE_AFTER_MS, nextAttemptAt, seededRandom } from './schedule';
import type { EndpointKind } from './endpoints';
import type { DeliveryStatus } from './deliveries';
import type { DB } from './generated/kysely/tables';
import { ENDPOINT_DISABLED } from './disabled';

/** `status = 'pending'` written into the statement: the predicate of the index of pending deliveries (see CLAIM). */
const PENDING = sql.lit('pending');

/** `column = ANY($n)`: one array parameter, so an empty list is no special case (`IN ()` is not SQL). */
const anyOf = <T>(eb: ExpressionBuilder<DB, keyof DB>, values: readonly T[]) => eb.fn<T>('any', [eb.val(values)]);

/**
 * Writes the deliveries of up to `limit` undispatched events, in one transaction, and marks
 * them dispatched; events are claimed with SKIP LOCKED, so several workers share the work.
 * - an event with a target endpoint (console test) or URL (v1 KYC session) goes there only;
 * - a crypto event goes to the merchant's endpoint of its mode, if the merchant has a URL for
 *   that mode (`merchantsWithUrl` asks the accounts package: `webhookUrl`, or for test events
 *   `testWebhookUrl` when set);
 * - an invoicing event goes to every console endpoint of its merchant and mode subscribed to
 *   its kind.
 * A delivery to a disabled endpoint is written `failed` without an attempt, so the endpoint's
 * replay sends it once the endpoint is fixed. The unique (event, endpoint) index makes one
 * delivery per pair a fact of the table, not only of this locking. Returns how many
 * deliveries were written.
 *
 * With `lease`, the first `lease.limit` pending deliveries (in event order) are written already
 * held by that worker, and returned as a claim returns them: the worker sends what it has just
 * written without claiming it (an UPDATE of each row, which touched every index of the table
 * again, and a scan). The lease is the claim's: it holds while the worker beats, and a worker
 * that dies, or loses this answer, has them claimed again (claimDue).
 */
export async function dispatchEvents(
  db: Transactions,
  o: {
    limit: number;
    now: Date;
    merchantsWithUrl: (merchantIds: string[]) => Promise<{ live: string[]; test: string[] }>;
    lease?: { workerId: string; limit: number };
  },
): Promise<{ events: number; deliveries: number; leased: ClaimedDelivery[] }> {
  return db.$transaction(async (tx) => {
    const t = webhookTables(tx);
    const events = await t
      .selectFrom('events')
      .select((eb) => ['id', 'merchant_id', eb.and([eb('source', '=', 'crypto'), eb('target_url', 'is', null), eb('target_endpoint_id', 'is', null)]).as('crypto')])
      .where('dispatched_at', 'is', null)
      .orderBy('seq')
      .limit(o.limit)
      .forUpdate()
      .skipLocked()
      .execute();
    if (events.length === 0) return { events: 0, deliveries: 0, leased: [] };
    const ids = events.map((e) => e.id);
    const cryptoMerchants = [...new Set(events.filter((e) => e.crypto).map((e) => e.merchant_id))];
    const withUrl = cryptoMerchants.length > 0 ? await o.merchantsWithUrl(cryptoMerchants) : { live: [], test: [] };
    // The event's merchant has a URL for the event's mode.
    const hasUrl = (eb: ExpressionBuilder<DB & { ev: DB['events'] }, 'ev'>) =>
      eb.or([
        eb.and([eb('ev.is_test', '=', false), eb('ev.merchant_id', '=', anyOf(eb as never, withUrl.live))]),
        eb.and([eb('ev.is_test', '=', true), eb('ev.merchant_id', '=', anyOf(eb as never, withUrl.test))]),
      ]);
    const now = (eb: ExpressionBuilder<DB, keyof DB>) => eb.cast<Date>(eb.val(o.now), 'timestamptz');
    // Merchant and target endpoints have ids derived from what they stand for, so concurrent
    // dispatchers agree on one row each.
    await t
      .insertInto('endpoints')
      .columns(['id', 'merchant_id', 'is_test', 'kind', 'url', 'events', 'created_at', 'updated_at'])
      .expression(
        t
          .selectFrom('events as ev')
          .distinct()
          .select((eb) => [
            eb
              .case()
              .when('ev.target_url', 'is', null)
              .then(sql<string>`md5('merchant:' || ${eb.ref('ev.merchant_id')} || ':' || ${eb.ref('ev.is_test')})::uuid`)
              .else(sql<string>`md5('target:' || ${eb.ref('ev.merchant_id')} || ':' || ${eb.ref('ev.is_test')} || ':' || ${eb.ref('ev.target_url')})::uuid`)
              .end()
              .as('id'),
            'ev.merchant_id',
            'ev.is_test',
            eb.case().when('ev.target_url', 'is', null).then(sql.lit('merchant')).else(sql.lit('target')).end().as('kind'),
            'ev.target_url',
            sql<string[]>`'{}'::text[]`.as('events'),
            now(eb as never).as('created_at'),
            now(eb as never).as('updated_at'),
          ])
          .where((eb) => eb('ev.id', '=', anyOf(eb as never, ids)))
          .where('ev.target_endpoint_id', 'is', null)
          .where((eb) => eb.or([eb('ev.target_url', 'is not', null), eb.and([eb('ev.source', '=', 'crypto'), hasUrl(eb as never)])])),
      )
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
    const lease = o.lease ?? null;
    const inserted = await t
      .with('inserted', (w) =>
        w
          .insertInto('deliveries')
          .columns(['id', 'event_id', 'endpoint_id', 'event_type', 'status', 'attempts', 'next_attempt_at', 'last_error', 'created_at', 'lease_owner'])
          .expression(
            w
              .selectFrom('events as ev')
              .innerJoin('endpoints as ep', (join) => join.onRef('ep.merchant_id', '=', 'ev.merchant_id').onRef('ep.is_test', '=', 'ev.is_test'))
              .select((eb) => [
                sql<string>`gen_random_uuid()`.as('id'),
                'ev.id as event_id',
                'ep.id as endpoint_id',
                'ev.type as event_type',
                eb.case().when('ep.disabled_at', 'is', null).then(sql.lit('pending')).else(sql.lit('failed')).end().as('status'),
                sql.lit(0).as('attempts'),
                eb.case().when('ep.disabled_at', 'is', null).then(now(eb as never)).end().as('next_attempt_at'),
                eb.case().when('ep.disabled_at', 'is not', null).then(sql.lit('not sent: the endpoint is disabled')).end().as('last_error'),
                now(eb as never).as('created_at'),
                lease
                  ? eb
                      .case()
                      .when(eb.and([eb('ep.disabled_at', 'is', null), eb(sql<number>`row_number() over (partition by ${eb.ref('ep.disabled_at')} is null order by ${eb.ref('ev.seq')}, ${eb.ref('ep.id')})`, '<=', lease.limit)]))
                      .then(sql<string>`cast(${lease.workerId} as uuid)`)
                      .end()
                      .as('lease_owner')
                  : sql<string | null>`null::uuid`.as('lease_owner'),
              ])
              .where((eb) => eb('ev.id', '=', anyOf(eb as never, ids)))
              .where((eb) =>
                eb
                  .case()
                  .when('ev.target_endpoint_id', 'is not', null)
                  .then(eb('ep.id', '=', eb.ref('ev.target_endpoint_id')))
                  .when('ev.target_url', 'is not', null)
                  .then(eb.and([eb('ep.kind', '=', 'target'), eb('ep.url', '=', eb.ref('ev.target_url'))]))
                  .when('ev.source', '=', 'crypto')
                  .then(eb.and([eb('ep.kind', '=', 'merchant'), hasUrl(eb as never)]))
                  // A disabled webhook is not told of its own disabling (nor another's): it would only be failed.
                  .else(
                    eb.and([
                      eb('ep.kind', '=', 'console'),
                      eb('ev.type', '=', eb.fn<string>('any', [eb.ref('ep.events')])),
                      eb.or([eb('ep.disabled_at', 'is', null), eb('ev.type', '!=', ENDPOINT_DISABLED)]),
                    ]),
                  )
                  .end(),
              ),
          )
          .onConflict((oc) => oc.columns(['event_id', 'endpoint_id']).doNothing())
          .returning(['id', 'endpoint_id', 'event_id', 'event_type', 'status', 'attempts', 'next_attempt_at', 'lease_owner']),
      )
      // What a claim returns of each leased row (the others are counted only).
      .selectFrom('inserted as c')
      .leftJoinLateral(
        (eb) => eb.selectFrom('endpoints as e').select(['e.merchant_id', 'e.is_test', 'e.kind', 'e.url']).whereRef('e.id', '=', 'c.endpoint_id').where('c.lease_owner', 'is not', null).offset(0).as('ep'),
        (join) => join.onTrue(),
      )
      .leftJoinLateral(
        (eb) => eb.selectFrom('events as e').select(['e.body', 'e.created_at', 'e.seq']).whereRef('e.id', '=', 'c.event_id').where('c.lease_owner', 'is not', null).offset(0).as('ev'),
        (join) => join.onTrue(),
      )
      .select((eb) => [...claimColumns(eb as never), 'c.lease_owner', sql<boolean>`false`.as('manual')])
      .orderBy('ev.seq')
      .execute();
    await t
      .updateTable('events')
      .set({ dispatched_at: o.now })
      .where((eb) => eb('id', '=', anyOf(eb as never, ids)))
      .execute();
    const leased = inserted.filter((r) => r.lease_owner !== null).map((r) => claimedOf(r as ClaimRow));
    return { events: events.length, deliveries: inserted.length, leased };
  });
}

/** A delivery this worker now holds, with what it needs to send it. */
export interface ClaimedDelivery {
  id: string;
  endpointId: string;
  merchantId: string;
  isTest: boolean;
  kind: EndpointKind;
  /**
   * The endpoint's URL at claim time, for the record of a send that failed before reading it
   * again: each send reads URL, secret and state right before it goes (endpointTargets).
   */
  url: string | null;
  eventType: string;
  /** The event body exactly as recorded. */
  body: string;
  eventAt: Date;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: Date | null;
  /** True when this is a console resend rather than a due scheduled attempt. */
  manual: boolean;
}

/** A lease is void once its worker has not beaten for this long (it was killed, or lost the database). */
export const DEFAULT_WORKER_TTL_MS = 10_000;

/**
 * Claims up to `limit` deliveries that are due (a scheduled attempt whose time has come, or a
 * resend asked for) and not held by a live worker, oldest first, at most `perEndpoint` of one
 * endpoint (so one endpoint's backlog cannot fill a claim). Endpoints in `skipEndpoints`
 * (those this worker already has enough of) are left for later.
 * A lease of this worker's own that it does not hold in memory (`heldIds`) is claimable too:
 * a claim whose answer was lost (Postgres restarted after the commit) or whose handling
 * failed half-way must not wait for this worker to die.
 */
export async function claimDue(
  db: Queries,
  o: { workerId: string; now: Date; limit: number; perEndpoint: number; skipEndpoints: string[]; ttlMs?: number; heldIds?: string[] },
): Promise<ClaimedDelivery[]> {
  const rows = await CLAIM(webhookTables(db), {
    workerId: o.workerId,
    now: o.now,
    limit: o.limit,
    scan: o.limit * 4,
    perEndpoint: o.perEndpoint,
    skipEndpoints: o.skipEndpoints,
    ttlMs: o.ttlMs ?? DEFAULT_WORKER_TTL_MS,
    held: o.heldIds ?? [],
  });
  return rows.map(claimedOf);
}

/** A claimed (or freshly leased) row as the claim's and the dispatch's statements return it. */
interface ClaimRow {
  id: string;
  endpoint_id: string;
  merchant_id: string;
  is_test: boolean;
  kind: string;
  url: string | null;
  event_type: string;
  body: string;
  event_at: Date;
  status: string;
  attempts: number;
  next_attempt_at: Date | null;
  manual: boolean;
}

/** The rows a claim's columns are read from: `c` the delivery (as just written or updated), `ep` its endpoint, `ev` its event. */
type ClaimSources = {
  c: Pick<ClaimRow, 'id' | 'endpoint_id' | 'event_type' | 'status' | 'attempts' | 'next_attempt_at'>;
  ep: Pick<DB['endpoints'], 'merchant_id' | 'is_test' | 'kind' | 'url'>;
  ev: Pick<DB['events'], 'body' | 'created_at'>;
};

/** What the claim and the leasing dispatch return of each delivery, but `manual`: the columns of a ClaimRow. */
function claimColumns(eb: ExpressionBuilder<ClaimSources, keyof ClaimSources>) {
  return [
    'c.id',
    'c.endpoint_id',
    'ep.merchant_id',
    'ep.is_test',
    'ep.kind',
    'ep.url',
    'c.event_type',
    eb.cast<string>('ev.body', 'text').as('body'),
    'ev.created_at as event_at',
    'c.status',
    'c.attempts',
    'c.next_attempt_at',
  ] as const;
}

function claimedOf(r: ClaimRow): ClaimedDelivery {
  return {
    id: r.id,
    endpointId: r.endpoint_id,
    merchantId: r.merchant_id,
    isTest: r.is_test,
    kind: r.kind as EndpointKind,
    url: r.url,
    eventType: r.event_type,
    body: r.body,
    eventAt: r.event_at,
    status: r.status as DeliveryStatus,
    attempts: r.attempts,
    nextAttemptAt: r.next_attempt_at,
    manual: r.manual,
  };
}

/**
 * The claim, one statement (so atomic on its own, outside any transaction): run per round of
 * the worker, for every delivery it sends, so it is a prepared statement on the pool
 * (`preparedStatement`; see recordOutcomes for the measurement).
 *
 * Its plan must not depend on estimates. Statistics nearly always say that pending deliveries
 * are rare (almost all have succeeded), and on a new database that the tables are empty; and
 * a prepared statement keeps the plan made from them. With joins, Postgres planned the claim
 * as a walk of the due index for each chosen row (1,600 x 1,600 rows) and scans of whole
 * tables: a backlog of 40,000 drained at 1,900 deliveries/s instead of 7,200. So only the
 * first scan walks an index in order; every row after it is reached by primary key, one
 * lookup per row: through a lateral subquery fenced with `offset 0` (Postgres neither merges
 * it into the outer query nor pushes conditions into it, so the key is its only index), and
 * for the update through `= any(array(…))`.
 */
const CLAIM = preparedStatement(
  (
    db: Kysely<DB>,
    p: { workerId: string; now: Date; limit: number; scan: number; perEndpoint: number; skipEndpoints: string[]; ttlMs: number; held: string[] },
  ) => {
    type D = ExpressionBuilder<DB & { d: DB['deliveries'] }, 'd'>;
    // Not held by a live worker (or held by this one without it knowing), and not of a skipped endpoint.
    const free = (eb: D) =>
      eb.and([
        eb.or([
          eb('d.lease_owner', 'is', null),
          eb.and([eb('d.lease_owner', '=', p.workerId), eb.not(eb('d.id', '=', anyOf(eb as never, p.held)))]),
          eb.not(
            eb.exists(
              eb
                .selectFrom('workers as w')
                .select(sql.lit(1).as('one'))
                .whereRef('w.id', '=', 'd.lease_owner')
                .where('w.seen_at', '>', sql<Date>`now() - cast(${p.ttlMs} as integer) * interval '1 millisecond'`),
            ),
          ),
        ]),
        eb.not(eb('d.endpoint_id', '=', anyOf(eb as never, p.skipEndpoints))),
      ]);
    return db
      .with('candidates', (w) =>
        w
          .selectFrom('deliveries as d')
          .select(['d.id', 'd.endpoint_id', 'd.next_attempt_at'])
          // A literal, not a parameter: the index of due deliveries holds pending rows only, and
          // a generic plan can use it only when the query's own text says `status = 'pending'`.
          .where('d.status', '=', PENDING)
          .where('d.next_attempt_at', '<=', p.now)
          .where(free)
          .orderBy('d.next_attempt_at')
          .limit(p.scan),
      )
      .with('chosen', (w) =>
        w
          .selectFrom((q) =>
            q
              .selectFrom('candidates as c')
              .select((eb) => ['c.id', 'c.next_attempt_at', eb.fn.agg<number>('row_number', []).over((ob) => ob.partitionBy('c.endpoint_id').orderBy('c.next_attempt_at')).as('nth')])
              .as('r'),
          )
          .select('r.id')
          .where('r.nth', '<=', p.perEndpoint)
          .orderBy('r.next_attempt_at'),
      )
      // Each chosen row, oldest first, locked by key and checked again once locked (what FOR
      // UPDATE returns is the row's latest version), until `limit` are: a row another worker is
      // claiming is passed over for the next, as SKIP LOCKED under a LIMIT does. The nested
      // loop runs the lateral lookup per row only as the limit asks for more.
      .with('scheduled', (w) =>
        w
          .selectFrom('chosen as ch')
          .crossJoinLateral((eb) =>
            eb.selectFrom('deliveries as x').select(['x.id', 'x.status', 'x.next_attempt_at', 'x.lease_owner', 'x.endpoint_id']).whereRef('x.id', '=', 'ch.id').offset(0).forUpdate('x').skipLocked().as('d'),
          )
          .select('d.id')
          .where('d.status', '=', 'pending')
          .where('d.next_attempt_at', '<=', p.now)
          .where(free as never)
          .limit(p.limit),
      )
      .with('resends', (w) =>
        w.selectFrom('deliveries as d').select('d.id').where('d.resend_requested_at', 'is not', null).where(free).orderBy('d.resend_requested_at').limit(p.limit).forUpdate('d').skipLocked(),
      )
      .with('claimed', (w) =>
        w
          .updateTable('deliveries as d')
          .set({ lease_owner: p.workerId })
          // Not `in (…)`: planned as a hash join over a scan of the whole table.
          .where((eb) => eb('d.id', '=', eb.fn<string>('any', [sql`array(${w.selectFrom('scheduled').select('id').union(w.selectFrom('resends').select('id'))})`])))
          .returning(['d.id', 'd.endpoint_id', 'd.event_id', 'd.event_type', 'd.status', 'd.attempts', 'd.next_attempt_at']),
      )
      // Endpoint and event by key, per claimed row (joined, they were scans of whole tables).
      .selectFrom('claimed as c')
      .crossJoinLateral((eb) => eb.selectFrom('endpoints as e').select(['e.merchant_id', 'e.is_test', 'e.kind', 'e.url']).whereRef('e.id', '=', 'c.endpoint_id').offset(0).as('ep'))
      .crossJoinLateral((eb) => eb.selectFrom('events as e').select(['e.body', 'e.created_at']).whereRef('e.id', '=', 'c.event_id').offset(0).as('ev'))
      .select((eb) => [...claimColumns(eb as never), eb.not(eb.and([eb('c.status', '=', 'pending'), eb('c.next_attempt_at', '<=', p.now)])).$castTo<boolean>().as('manual')])
      .orderBy('c.next_attempt_at', (ob) => ob.asc().nullsLast());
  },
);

/** Gives deliveries back untouched (this worker has no room for them); any worker may claim them again. */
export async function releaseDeliveries(db: Queries, workerId: string, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await RELEASE(webhookTables(db), { workerId, ids });
}

const RELEASE = preparedStatement((db: Kysely<DB>, p: { workerId: string; ids: string[] }) =>
  db
    .updateTable('deliveries')
    .set({ lease_owner: null })
    .where((eb) => eb('id', '=', anyOf(eb as never, p.ids)))
    .where('lease_owner', '=', p.workerId),
);

/** An endpoint's URL, sealed secret(s) and state as stored now. */
export interface EndpointTarget {
  url: string | null;
  secretEnc: string | null;
  /** The secret replaced by a rotation with an overlap, and until when it signs too. */
  previousSecretEnc: string | null;
  previousSecretExpiresAt: Date | null;
  disabled: boolean;
}

/** The current URL, secret and state of endpoints, read right before each send (a read per few sends: prepared). */
export async function endpointTargets(db: Queries, ids: string[]): Promise<Map<string, EndpointTarget>> {
  const rows = await ENDPOINT_TARGETS(webhookTables(db), { ids });
  return new Map(
    rows.map((r) => [r.id, { url: r.url, secretEnc: r.secret_enc, previousSecretEnc: r.previous_secret_enc, previousSecretExpiresAt: r.previous_secret_expires_at, disabled: r.disabled }]),
  );
}

const ENDPOINT_TARGETS = preparedStatement((db: Kysely<DB>, p: { ids: string[] }) =>
  db
    .selectFrom('endpoints')
    .select((eb) => ['id', 'url', 'secret_enc', 'previous_secret_enc', 'previous_secret_expires_at', eb('disabled_at', 'is not', null).$castTo<boolean>().as('disabled')])
    .where((eb) => eb('id', '=', anyOf(eb as never, p.ids))),
);

/** What one attempt found. */
export interface AttemptResult {
  at: Date;
  durationMs: number;
  url: string;
  statusCode: number | null;
  error: string | null;
  responseBody: string | null;
  succeeded: boolean;
  /** What a 429 or 503 answer's Retry-After asked for, in ms (retryAfterMsOf). */
  retryAfterMs?: number | null;
}

/** The end of a claim: an attempt made, or the delivery given up on without one (disabled endpoint). */
export interface Outcome {
  delivery: Pick<ClaimedDelivery, 'id' | 'endpointId' | 'status' | 'attempts' | 'nextAttemptAt' | 'manual'>;
  attempt?: AttemptResult;
  /** Why no attempt was made; the delivery is then `failed` (replayable). */
  notSent?: string;
}

/** What a delivery becomes after an outcome: the retry schedule applied. */
export function afterOutcome(o: Outcome): { status: DeliveryStatus; attempts: number; nextAttemptAt: Date | null } {
  const d = o.delivery;
  if (!o.attempt) return { status: 'failed', attempts: d.attempts, nextAttemptAt: null };
  if (d.manual) {
    // A resend leaves the schedule alone; only a success changes the delivery's state.
    return o.attempt.succeeded ? { status: 'succeeded', attempts: d.attempts, nextAttemptAt: null } : { status: d.status, attempts: d.attempts, nextAttemptAt: d.nextAttemptAt };
  }
  const attempts = d.attempts + 1;
  if (o.attempt.succeeded) return { status: 'succeeded', attempts, nextAttemptAt: null };
  // Jitter seeded by delivery and attempt: recordOutcomes and the worker's wake agree on the time.
  const next = nextAttemptAt(attempts, o.attempt.at, { retryAfterMs: o.attempt.retryAfterMs, random: seededRandom(`${d.id}:${attempts}`) });
  return next ? { status: 'pending', attempts, nextAttemptAt: next } : { status: 'failed', attempts, nextAttemptAt: null };
}

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

/**
 * Records a batch of outcomes in one statement (atomic on its own, outside any transaction):
 * the attempts, each delivery's new state (lease released), and each endpoint's failing
 * streak; an endpoint failing for AUTO_DISABLE_AFTER_MS is disabled in the same statement.
 * Its pending deliveries then become `failed` (replayable) in a second statement; should that
 * one not run (a crash between the two), the send of each finds the endpoint disabled and
 * records it `failed` without an attempt, as this would have. Returns the ids of endpoints
 * disabled now.
 *
 * The worker runs this for every batch of sends, and the claim (claimDue) and the reads
 * before each send (endpointTargets) as often: they are prepared statements on the pool
 * (`preparedStatement`), since through `$kysely` each costs about 4x the CPU of pg
 * (packages/db/README.md); `BENCH_ONLY=webhooks.drain pnpm bench` moved with them (see the
 * commit that made them so).
 */
export async function recordOutcomes(db: Queries, workerId: string, outcomes: Outcome[], now: Date): Promise<string[]> {
  if (outcomes.length === 0) return [];
  const next = outcomes.map((o) => afterOutcome(o));
  // Per endpoint, in time order: did anything succeed, and when did the failures after the last success start?
  const streaks = new Map<string, { success: boolean; firstFail: Date | null }>();
  for (const o of outcomes.filter((o) => o.attempt).sort((a, b) => a.attempt!.at.getTime() - b.attempt!.at.getTime())) {
    const s = streaks.get(o.delivery.endpointId) ?? { success: false, firstFail: null };
    if (o.attempt!.succeeded) streaks.set(o.delivery.endpointId, { success: true, firstFail: null });
    else streaks.set(o.delivery.endpointId, { success: s.success, firstFail: s.firstFail ?? o.attempt!.at });
  }
  const endpointIds = [...streaks.keys()];
  const t = webhookTables(db);
  const disabled = await RECORD(t, {
    workerId,
    now,
    disableBefore: new Date(now.getTime() - AUTO_DISABLE_AFTER_MS),
    ids: outcomes.map((o) => o.delivery.id),
    statuses: next.map((n) => n.status),
    attempts: next.map((n) => n.attempts),
    nextAts: next.map((n) => iso(n.nextAttemptAt)),
    sent: outcomes.map((o) => !!o.attempt),
    ats: outcomes.map((o) => iso(o.attempt?.at)),
    durations: outcomes.map((o) => o.attempt?.durationMs ?? null),
    urls: outcomes.map((o) => o.attempt?.url ?? null),
    codes: outcomes.map((o) => o.attempt?.statusCode ?? null),
    errors: outcomes.map((o) => o.attempt?.error ?? null),
    bodies: outcomes.map((o) => o.attempt?.responseBody ?? null),
    succeeded: outcomes.map((o) => o.attempt?.succeeded ?? false),
    notSent: outcomes.map((o) => o.notSent ?? null),
    manual: outcomes.map((o) => o.delivery.manual),
    endpointIds,
    successes: endpointIds.map((id) => streaks.get(id)!.success),
    firstFails: endpointIds.map((id) => iso(streaks.get(id)!.firstFail)),
  });
  if (disabled.length === 0) return [];
  const ids = disabled.map((r) => r.id);
  await t
    .updateTable('deliveries')
    .set((eb) => ({ status: 'failed', next_attempt_at: null, last_error: eb.fn.coalesce('last_error', sql.lit('not sent: the endpoint is disabled')) }))
    .where((eb) => eb('endpoint_id', '=', anyOf(eb as never, ids)))
    .where('status', '=', 'pending')
    .where((eb) => eb.or([eb('lease_owner', 'is', null), eb('lease_owner', '=', workerId)]))
    .execute();
  return ids;
}

/** One outcome per row: the delivery's new state and, when a request was sent, its attempt. */
interface OutcomeRow {
  id: string;
  status: string;
  attempts: number;
  next_at: Date | null;
  sent: boolean;
  at: Date | null;
  duration: number | null;
  url: string | null;
  code: number | null;
  error: string | null;
  body: string | null;
  succeeded: boolean;
  not_sent: string | null;
  manual: boolean;
}

const RECORD = preparedStatement(
  (
    db: Kysely<DB>,
    p: {
      workerId: string;
      now: Date;
      disableBefore: Date;
      ids: string[];
      statuses: string[];
      attempts: number[];
      nextAts: (string | null)[];
      sent: boolean[];
      ats: (string | null)[];
      durations: (number | null)[];
      urls: (string | null)[];
      codes: (number | null)[];
      errors: (string | null)[];
      bodies: (string | null)[];
      succeeded: boolean[];
      notSent: (string | null)[];
      manual: boolean[];
      endpointIds: string[];
      successes: boolean[];
      firstFails: (string | null)[];
    },
  ) => {
    // Each column one array parameter, so the statement's shape is the same for every batch.
    const outcomes = sql<OutcomeRow>`unnest(${p.ids}::uuid[], ${p.statuses}::text[], ${p.attempts}::int[], ${p.nextAts}::timestamptz[], ${p.sent}::bool[],
              ${p.ats}::timestamptz[], ${p.durations}::int[], ${p.urls}::text[], ${p.codes}::int[], ${p.errors}::text[], ${p.bodies}::text[],
              ${p.succeeded}::bool[], ${p.notSent}::text[], ${p.manual}::bool[])`.as<'o'>(
      sql`o(id, status, attempts, next_at, sent, at, duration, url, code, error, body, succeeded, not_sent, manual)`,
    );
    const streaks = sql<{ id: string; success: boolean; first_fail: Date | null }>`unnest(${p.endpointIds}::uuid[], ${p.successes}::bool[], ${p.firstFails}::timestamptz[])`.as<'s'>(
      sql`s(id, success, first_fail)`,
    );
    const now = sql<Date>`cast(${p.now} as timestamptz)`;
    return (
      db
        .with('x', (w) => w.selectFrom(outcomes).selectAll())
        // Every request sent is recorded, whoever holds the delivery now.
        .with('recorded', (w) =>
          w
            .insertInto('attempts')
            .columns(['delivery_id', 'attempted_at', 'duration_ms', 'url', 'status_code', 'error', 'response_body', 'succeeded', 'manual'])
            .expression(
              w
                .selectFrom('x')
                .select(['x.id', sql<Date>`x.at`.as('at'), sql<number>`x.duration`.as('duration'), sql<string>`x.url`.as('url'), 'x.code', 'x.error', 'x.body', 'x.succeeded', 'x.manual'])
                .where('x.sent', '=', true),
            ),
        )
        // The delivery's new state, only while this worker still holds it.
        .with('delivered', (w) =>
          w
            .updateTable('deliveries as d')
            .from('x')
            .set((eb) => {
              // A retry of an endpoint disabled meanwhile (by an earlier batch of the same sends, whose
              // statement failed the endpoint's pending deliveries but not these, then in flight) is
              // failed as theirs were, replayable, rather than put back on the schedule.
              const stopped = eb.and([
                eb('x.status', '=', PENDING),
                eb('x.manual', '=', false),
                eb.exists(eb.selectFrom('endpoints as e').select(sql.lit(1).as('one')).whereRef('e.id', '=', 'd.endpoint_id').where('e.disabled_at', 'is not', null)),
              ]);
              return {
                status: eb.case().when(stopped).then(sql.lit('failed')).else(eb.ref('x.status')).end(),
                attempts: eb.ref('x.attempts'),
                next_attempt_at: eb.case().when(stopped).then(sql<Date | null>`NULL`).else(eb.ref('x.next_at')).end(),
                last_attempt_at: eb.case().when('x.sent', '=', true).then(eb.ref('x.at')).else(eb.ref('d.last_attempt_at')).end(),
                last_status_code: eb.case().when('x.sent', '=', true).then(eb.ref('x.code')).else(eb.ref('d.last_status_code')).end(),
                last_error: eb.case().when('x.sent', '=', true).then(eb.ref('x.error')).else(eb.ref('x.not_sent')).end(),
                last_response_body: eb.case().when('x.sent', '=', true).then(eb.ref('x.body')).else(eb.ref('d.last_response_body')).end(),
                resend_requested_at: eb.case().when('x.manual', '=', true).then(sql<Date | null>`NULL`).else(eb.ref('d.resend_requested_at')).end(),
                lease_owner: null,
              };
            })
            .whereRef('d.id', '=', 'x.id')
            .where('d.lease_owner', '=', p.workerId)
            .returning('d.id'),
        )
        // Each endpoint's failing streak and, when it has failed for AUTO_DISABLE_AFTER_MS, its disabling:
        // one UPDATE per endpoint row (a statement may change a row once). `was` is the row before it.
        .with('streaks', (w) =>
          w
            .updateTable('endpoints as e')
            .from([streaks, 'endpoints as was'])
            .set((eb) => {
              const failingSince = eb.case().when('s.success', '=', true).then(eb.ref('s.first_fail')).else(eb.fn.coalesce('e.failing_since', 's.first_fail')).end();
              const disable = eb.and([eb('e.disabled_at', 'is', null), eb(failingSince, '<=', p.disableBefore)]);
              return {
                failing_since: failingSince,
                disabled_at: eb.case().when(disable).then(now).else(eb.ref('e.disabled_at')).end(),
                disabled_reason: eb.case().when(disable).then(sql.lit('every delivery failed for 3 days')).else(eb.ref('e.disabled_reason')).end(),
                updated_at: eb.case().when(disable).then(now).else(eb.ref('e.updated_at')).end(),
              };
            })
            .whereRef('e.id', '=', 's.id')
            .whereRef('was.id', '=', 'e.id')
            .returning((eb) => ['e.id', eb.and([eb('was.disabled_at', 'is', null), eb('e.disabled_at', 'is not', null)]).as('disabled_now')]),
        )
        .selectFrom('streaks')
        .select('streaks.id')
        .where('streaks.disabled_now', '=', true)
    );
  },
);

/** This worker is alive: its leases hold for another `ttl`. */
export async function heartbeat(db: Queries, workerId: string): Promise<void> {
  await webhookTables(db)
    .insertInto('workers')
    .values({ id: workerId, started_at: sql<Date>`now()`, seen_at: sql<Date>`now()` })
    .onConflict((oc) => oc.column('id').doUpdateSet({ seen_at: sql<Date>`now()` }))
    .execute();
}

/** At shutdown: give back every delivery still held and leave; also forgets workers gone for a day. */
export async function retireWorker(db: Queries, workerId: string): Promise<void> {
  const t = webhookTables(db);
  await t.updateTable('deliveries').set({ lease_owner: null }).where('lease_owner', '=', workerId).execute();
  await t
    .deleteFrom('workers')
    .where((eb) => eb.or([eb('id', '=', workerId), eb('seen_at', '<', sql<Date>`now() - interval '1 day'`)]))
    .execute();
}

/**
 * How much work waits, for /metrics: events not yet dispatched, deliveries due and scheduled,
 * how long the oldest due delivery has waited (0 when none is due), and endpoints disabled.
 */
export async function queueDepth(
  db: Queries,
  now: Date,
): Promise<{ undispatched: number; due: number; scheduled: number; oldestDueSeconds: number; endpointsDisabled: number }> {
  const t = webhookTables(db);
  const row = await t
    .selectNoFrom((eb) => [
      eb.cast<number>(eb.selectFrom('events').select((s) => s.fn.countAll().as('n')).where('dispatched_at', 'is', null), 'integer').as('undispatched'),
      eb.cast<number>(eb.selectFrom('deliveries').select((s) => s.fn.countAll().as('n')).where('status', '=', PENDING).where('next_attempt_at', '<=', now), 'integer').as('due'),
      eb.cast<number>(eb.selectFrom('deliveries').select((s) => s.fn.countAll().as('n')).where('status', '=', PENDING).where('next_attempt_at', '>', now), 'integer').as('scheduled'),
      eb.selectFrom('deliveries').select((s) => s.fn.min('next_attempt_at').as('t')).where('status', '=', PENDING).where('next_attempt_at', '<=', now).as('oldest_due'),
      eb.cast<number>(eb.selectFrom('endpoints').select((s) => s.fn.countAll().as('n')).where('disabled_at', 'is not', null), 'integer').as('endpoints_disabled'),
    ])
    .executeTakeFirstOrThrow();
  const oldest = row.oldest_due ? new Date(row.oldest_due as Date | string).getTime() : null;
  return {
    undispatched: row.undispatched,
    due: row.due,
    scheduled: row.scheduled,
    oldestDueSeconds: oldest === null ? 0 : Math.max(0, (now.getTime() - oldest) / 1000),
    endpointsDisabled: row.endpoints_disabled,
  };
}
