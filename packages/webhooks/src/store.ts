// The webhook worker's reads and writes: turning events into deliveries, claiming due
// deliveries, recording attempts in batches, and the heartbeats that make claims safe. Kept
// here because this package owns the tables; the worker service only orchestrates.
import type { Sql, SqlWithTransactions } from './db';
import { AUTO_DISABLE_AFTER_MS, nextAttemptAt, seededRandom } from './schedule';
import type { EndpointKind } from './endpoints';
import type { DeliveryStatus } from './deliveries';

const EVENTS = 'webhooks.events';
const ENDPOINTS = 'webhooks.endpoints';
const DELIVERIES = 'webhooks.deliveries';
const ATTEMPTS = 'webhooks.attempts';
const WORKERS = 'webhooks.workers';

/**
 * Writes the deliveries of up to `limit` undispatched events, in one transaction, and marks
 * them dispatched; events are claimed with SKIP LOCKED, so several workers share the work.
 * - an event with a target endpoint (console test) or URL (v1 KYC session) goes there only;
 * - a crypto event goes to the merchant's `webhookUrl` endpoint, if the merchant has a URL
 *   (`merchantsWithUrl` asks the accounts package);
 * - an invoicing event goes to every console endpoint of its merchant and mode subscribed to
 *   its kind.
 * A delivery to a disabled endpoint is written `failed` without an attempt, so the endpoint's
 * replay sends it once the endpoint is fixed. The unique (event, endpoint) index makes one
 * delivery per pair a fact of the table, not only of this locking. Returns how many
 * deliveries were written.
 */
export async function dispatchEvents(
  db: SqlWithTransactions,
  o: { limit: number; now: Date; merchantsWithUrl: (merchantIds: string[]) => Promise<string[]> },
): Promise<{ events: number; deliveries: number }> {
  return db.$transaction(async (tx) => {
    const events = await tx.$queryRawUnsafe<{ id: string; merchant_id: string; crypto: boolean }[]>(
      `SELECT id::text, merchant_id::text, (source = 'crypto' AND target_url IS NULL AND target_endpoint_id IS NULL) AS crypto
         FROM ${EVENTS} WHERE dispatched_at IS NULL ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED`,
      o.limit,
    );
    if (events.length === 0) return { events: 0, deliveries: 0 };
    const ids = events.map((e) => e.id);
    const cryptoMerchants = [...new Set(events.filter((e) => e.crypto).map((e) => e.merchant_id))];
    const withUrl = cryptoMerchants.length > 0 ? await o.merchantsWithUrl(cryptoMerchants) : [];
    // Merchant and target endpoints have ids derived from what they stand for, so concurrent
    // dispatchers agree on one row each.
    await tx.$executeRawUnsafe(
      `INSERT INTO ${ENDPOINTS} (id, merchant_id, is_test, kind, url, events, created_at, updated_at)
       SELECT DISTINCT CASE WHEN ev.target_url IS NULL THEN md5('merchant:' || ev.merchant_id || ':' || ev.is_test)
                            ELSE md5('target:' || ev.merchant_id || ':' || ev.is_test || ':' || ev.target_url) END::uuid,
              ev.merchant_id, ev.is_test, CASE WHEN ev.target_url IS NULL THEN 'merchant' ELSE 'target' END, ev.target_url, '{}'::text[], $3::timestamptz, $3::timestamptz
         FROM ${EVENTS} ev
        WHERE ev.id = ANY($1::uuid[]) AND ev.target_endpoint_id IS NULL
          AND (ev.target_url IS NOT NULL OR (ev.source = 'crypto' AND ev.merchant_id = ANY($2::uuid[])))
       ON CONFLICT (id) DO NOTHING`,
      ids,
      withUrl,
      o.now,
    );
    const deliveries = await tx.$executeRawUnsafe(
      `INSERT INTO ${DELIVERIES} (id, event_id, endpoint_id, event_type, status, attempts, next_attempt_at, last_error, created_at)
       SELECT gen_random_uuid(), ev.id, ep.id, ev.type,
              CASE WHEN ep.disabled_at IS NULL THEN 'pending' ELSE 'failed' END, 0,
              CASE WHEN ep.disabled_at IS NULL THEN $3::timestamptz END,
              CASE WHEN ep.disabled_at IS NOT NULL THEN 'not sent: the endpoint is disabled' END,
              $3::timestamptz
         FROM ${EVENTS} ev JOIN ${ENDPOINTS} ep ON ep.merchant_id = ev.merchant_id AND ep.is_test = ev.is_test
        WHERE ev.id = ANY($1::uuid[]) AND CASE
          WHEN ev.target_endpoint_id IS NOT NULL THEN ep.id = ev.target_endpoint_id
          WHEN ev.target_url IS NOT NULL THEN ep.kind = 'target' AND ep.url = ev.target_url
          WHEN ev.source = 'crypto' THEN ep.kind = 'merchant' AND ev.merchant_id = ANY($2::uuid[])
          ELSE ep.kind = 'console' AND ev.type = ANY(ep.events) END
       ON CONFLICT (event_id, endpoint_id) DO NOTHING`,
      ids,
      withUrl,
      o.now,
    );
    await tx.$executeRawUnsafe(`UPDATE ${EVENTS} SET dispatched_at = $2 WHERE id = ANY($1::uuid[])`, ids, o.now);
    return { events: events.length, deliveries };
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
  db: Sql,
  o: { workerId: string; now: Date; limit: number; perEndpoint: number; skipEndpoints: string[]; ttlMs?: number; heldIds?: string[] },
): Promise<ClaimedDelivery[]> {
  const free = `(d.lease_owner IS NULL
                 OR (d.lease_owner = $1::uuid AND NOT (d.id = ANY($7::uuid[])))
                 OR NOT EXISTS (SELECT 1 FROM ${WORKERS} w WHERE w.id = d.lease_owner AND w.seen_at > now() - $5 * interval '1 millisecond'))
                AND NOT (d.endpoint_id = ANY($4::uuid[]))`;
  const rows = await db.$queryRawUnsafe<
    {
      id: string;
      endpoint_id: string;
      merchant_id: string;
      is_test: boolean;
      kind: EndpointKind;
      url: string | null;
      event_type: string;
      body: string;
      event_at: Date;
      status: DeliveryStatus;
      attempts: number;
      next_attempt_at: Date | null;
      manual: boolean;
    }[]
  >(
    `WITH candidates AS (
       SELECT d.id, row_number() OVER (PARTITION BY d.endpoint_id ORDER BY d.next_attempt_at) AS nth
         FROM (SELECT d.id, d.endpoint_id, d.next_attempt_at FROM ${DELIVERIES} d
                WHERE d.status = 'pending' AND d.next_attempt_at <= $2 AND ${free}
                ORDER BY d.next_attempt_at LIMIT $3 * 4) d),
     scheduled AS (
       SELECT d.id FROM ${DELIVERIES} d JOIN candidates c ON c.id = d.id
        WHERE c.nth <= $6 AND d.status = 'pending' AND d.next_attempt_at <= $2 AND ${free}
        ORDER BY d.next_attempt_at LIMIT $3 FOR UPDATE OF d SKIP LOCKED),
     resends AS (
       SELECT d.id FROM ${DELIVERIES} d WHERE d.resend_requested_at IS NOT NULL AND ${free}
        ORDER BY d.resend_requested_at LIMIT $3 FOR UPDATE OF d SKIP LOCKED),
     claimed AS (
       UPDATE ${DELIVERIES} d SET lease_owner = $1::uuid
        WHERE d.id IN (SELECT id FROM scheduled UNION SELECT id FROM resends)
       RETURNING d.id, d.endpoint_id, d.event_id, d.event_type, d.status, d.attempts, d.next_attempt_at)
     SELECT c.id::text, c.endpoint_id::text, ep.merchant_id::text, ep.is_test, ep.kind, ep.url, c.event_type, ev.body::text AS body, ev.created_at AS event_at,
            c.status, c.attempts, c.next_attempt_at, NOT (c.status = 'pending' AND c.next_attempt_at <= $2) AS manual
       FROM claimed c JOIN ${ENDPOINTS} ep ON ep.id = c.endpoint_id JOIN ${EVENTS} ev ON ev.id = c.event_id
      ORDER BY c.next_attempt_at NULLS LAST`,
    o.workerId,
    o.now,
    o.limit,
    o.skipEndpoints,
    o.ttlMs ?? DEFAULT_WORKER_TTL_MS,
    o.perEndpoint,
    o.heldIds ?? [],
  );
  return rows.map((r) => ({
    id: r.id,
    endpointId: r.endpoint_id,
    merchantId: r.merchant_id,
    isTest: r.is_test,
    kind: r.kind,
    url: r.url,
    eventType: r.event_type,
    body: r.body,
    eventAt: r.event_at,
    status: r.status,
    attempts: r.attempts,
    nextAttemptAt: r.next_attempt_at,
    manual: r.manual,
  }));
}

/** Gives deliveries back untouched (this worker has no room for them); any worker may claim them again. */
export async function releaseDeliveries(db: Sql, workerId: string, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.$executeRawUnsafe(`UPDATE ${DELIVERIES} SET lease_owner = NULL WHERE id = ANY($1::uuid[]) AND lease_owner = $2::uuid`, ids, workerId);
}

/** An endpoint's URL, sealed secret and state as stored now. */
export interface EndpointTarget {
  url: string | null;
  secretEnc: string | null;
  disabled: boolean;
}

/** The current URL, secret and state of endpoints, read right before each send. */
export async function endpointTargets(db: Sql, ids: string[]): Promise<Map<string, EndpointTarget>> {
  const rows = await db.$queryRawUnsafe<{ id: string; url: string | null; secret_enc: string | null; disabled: boolean }[]>(
    `SELECT id::text, url, secret_enc, disabled_at IS NOT NULL AS disabled FROM ${ENDPOINTS} WHERE id = ANY($1::uuid[])`,
    ids,
  );
  return new Map(rows.map((r) => [r.id, { url: r.url, secretEnc: r.secret_enc, disabled: r.disabled }]));
}

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
 * Records a batch of outcomes in one transaction: the attempts, each delivery's new state
 * (lease released), and each endpoint's failing streak; an endpoint failing for
 * AUTO_DISABLE_AFTER_MS is disabled and its pending deliveries become `failed` (replayable).
 * Returns the ids of endpoints disabled now.
 */
export async function recordOutcomes(db: SqlWithTransactions, workerId: string, outcomes: Outcome[], now: Date): Promise<string[]> {
  if (outcomes.length === 0) return [];
  const attempted = outcomes.filter((o) => o.attempt);
  const next = outcomes.map((o) => afterOutcome(o));
  // Per endpoint, in time order: did anything succeed, and when did the failures after the last success start?
  const streaks = new Map<string, { success: boolean; firstFail: Date | null }>();
  for (const o of [...attempted].sort((a, b) => a.attempt!.at.getTime() - b.attempt!.at.getTime())) {
    const s = streaks.get(o.delivery.endpointId) ?? { success: false, firstFail: null };
    if (o.attempt!.succeeded) streaks.set(o.delivery.endpointId, { success: true, firstFail: null });
    else streaks.set(o.delivery.endpointId, { success: s.success, firstFail: s.firstFail ?? o.attempt!.at });
  }
  return db.$transaction(async (tx) => {
    if (attempted.length > 0) {
      await tx.$executeRawUnsafe(
        `INSERT INTO ${ATTEMPTS} (delivery_id, attempted_at, duration_ms, url, status_code, error, response_body, succeeded, manual)
         SELECT * FROM unnest($1::uuid[], $2::timestamptz[], $3::int[], $4::text[], $5::int[], $6::text[], $7::text[], $8::bool[], $9::bool[])`,
        attempted.map((o) => o.delivery.id),
        attempted.map((o) => iso(o.attempt!.at)),
        attempted.map((o) => o.attempt!.durationMs),
        attempted.map((o) => o.attempt!.url),
        attempted.map((o) => o.attempt!.statusCode),
        attempted.map((o) => o.attempt!.error),
        attempted.map((o) => o.attempt!.responseBody),
        attempted.map((o) => o.attempt!.succeeded),
        attempted.map((o) => o.delivery.manual),
      );
    }
    await tx.$executeRawUnsafe(
      `UPDATE ${DELIVERIES} d SET status = x.status, attempts = x.attempts, next_attempt_at = x.next_at,
              last_attempt_at = CASE WHEN x.sent THEN x.at ELSE d.last_attempt_at END,
              last_status_code = CASE WHEN x.sent THEN x.code ELSE d.last_status_code END,
              last_error = CASE WHEN x.sent THEN x.error ELSE x.not_sent END,
              last_response_body = CASE WHEN x.sent THEN x.body ELSE d.last_response_body END,
              resend_requested_at = CASE WHEN x.manual THEN NULL ELSE d.resend_requested_at END,
              lease_owner = NULL
         FROM unnest($1::uuid[], $2::text[], $3::int[], $4::timestamptz[], $5::bool[], $6::timestamptz[], $7::int[], $8::text[], $9::text[], $10::text[], $11::bool[])
              AS x(id, status, attempts, next_at, sent, at, code, error, body, not_sent, manual)
        WHERE d.id = x.id AND d.lease_owner = $12::uuid`,
      outcomes.map((o) => o.delivery.id),
      next.map((n) => n.status),
      next.map((n) => n.attempts),
      next.map((n) => iso(n.nextAttemptAt)),
      outcomes.map((o) => !!o.attempt),
      outcomes.map((o) => iso(o.attempt?.at)),
      outcomes.map((o) => o.attempt?.statusCode ?? null),
      outcomes.map((o) => o.attempt?.error ?? null),
      outcomes.map((o) => o.attempt?.responseBody ?? null),
      outcomes.map((o) => o.notSent ?? null),
      outcomes.map((o) => o.delivery.manual),
      workerId,
    );
    if (streaks.size === 0) return [];
    const endpointIds = [...streaks.keys()];
    await tx.$executeRawUnsafe(
      `UPDATE ${ENDPOINTS} e SET failing_since = CASE WHEN x.success THEN x.first_fail ELSE coalesce(e.failing_since, x.first_fail) END
         FROM unnest($1::uuid[], $2::bool[], $3::timestamptz[]) AS x(id, success, first_fail) WHERE e.id = x.id`,
      endpointIds,
      endpointIds.map((id) => streaks.get(id)!.success),
      endpointIds.map((id) => iso(streaks.get(id)!.firstFail)),
    );
    const disabled = await tx.$queryRawUnsafe<{ id: string }[]>(
      `UPDATE ${ENDPOINTS} SET disabled_at = $2, disabled_reason = 'every delivery failed for 3 days', updated_at = $2
        WHERE id = ANY($1::uuid[]) AND disabled_at IS NULL AND failing_since <= $3 RETURNING id::text`,
      endpointIds,
      now,
      new Date(now.getTime() - AUTO_DISABLE_AFTER_MS),
    );
    if (disabled.length === 0) return [];
    const ids = disabled.map((r) => r.id);
    await tx.$executeRawUnsafe(
      `UPDATE ${DELIVERIES} SET status = 'failed', next_attempt_at = NULL, last_error = coalesce(last_error, 'not sent: the endpoint is disabled')
        WHERE endpoint_id = ANY($1::uuid[]) AND status = 'pending' AND (lease_owner IS NULL OR lease_owner = $2::uuid)`,
      ids,
      workerId,
    );
    return ids;
  });
}

/** This worker is alive: its leases hold for another `ttl`. */
export async function heartbeat(db: Sql, workerId: string): Promise<void> {
  await db.$executeRawUnsafe(
    `INSERT INTO ${WORKERS} (id, started_at, seen_at) VALUES ($1::uuid, now(), now()) ON CONFLICT (id) DO UPDATE SET seen_at = now()`,
    workerId,
  );
}

/** At shutdown: give back every delivery still held and leave; also forgets workers gone for a day. */
export async function retireWorker(db: Sql, workerId: string): Promise<void> {
  await db.$executeRawUnsafe(`UPDATE ${DELIVERIES} SET lease_owner = NULL WHERE lease_owner = $1::uuid`, workerId);
  await db.$executeRawUnsafe(`DELETE FROM ${WORKERS} WHERE id = $1::uuid OR seen_at < now() - interval '1 day'`, workerId);
}

/** How much work waits, for /metrics. */
export async function queueDepth(db: Sql, now: Date): Promise<{ undispatched: number; due: number; scheduled: number }> {
  const [row] = await db.$queryRawUnsafe<{ undispatched: number; due: number; scheduled: number }[]>(
    `SELECT (SELECT count(*) FROM ${EVENTS} WHERE dispatched_at IS NULL)::int AS undispatched,
            (SELECT count(*) FROM ${DELIVERIES} WHERE status = 'pending' AND next_attempt_at <= $1)::int AS due,
            (SELECT count(*) FROM ${DELIVERIES} WHERE status = 'pending' AND next_attempt_at > $1)::int AS scheduled`,
    now,
  );
  return row!;
}
