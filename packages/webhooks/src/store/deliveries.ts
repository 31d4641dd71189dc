// The deliveries and attempts as the console and the v2 API read them and ask for resends,
// replays and test events (this package's store of `webhooks.deliveries` for them; the
// worker's statements are ../store.ts).
import { randomUUID } from 'node:crypto';
import { ApiError } from '@pay/schemas';
import type { Owner } from '@pay/auth';
import { sql, type Selectable } from 'kysely';
import { webhookTables, type Queries, type Transactions } from '../db';
import type { WebhookAttempt, WebhookDelivery } from '../generated/kysely/tables';
import { consoleEndpoint, ownEndpoint } from './endpoints';
import { insertEvent } from '../events';
import type { EventCatalogue } from '../catalogue';
import type { AttemptView, DeliveryFilter, DeliveryStatus, DeliveryView, ObjectDelivery } from '../deliveries';

const COLUMNS = [
  'd.id',
  'd.endpoint_id',
  'd.event_id',
  'd.event_type',
  'd.status',
  'd.attempts',
  'd.last_status_code',
  'd.last_response_body',
  'd.last_error',
  'd.last_attempt_at',
  'd.created_at',
  'd.next_attempt_at',
  'd.resend_requested_at',
] as const;

type DeliveryColumn = (typeof COLUMNS)[number] extends `d.${infer C}` ? C : never;

type DeliveryRow = Omit<Pick<Selectable<WebhookDelivery>, 'id' | 'endpoint_id' | 'event_id' | 'event_type' | 'status' | 'attempts' | 'last_status_code' | 'last_response_body' | 'last_error' | 'last_attempt_at' | 'created_at' | 'next_attempt_at' | 'resend_requested_at'>, 'status'> & {
  status: string;
};

function view(r: DeliveryRow): DeliveryView {
  return {
    id: r.id,
    endpointId: r.endpoint_id,
    eventId: r.event_id,
    event: r.event_type,
    status: r.status as DeliveryStatus,
    attempts: r.attempts,
    lastStatusCode: r.last_status_code,
    lastResponseBody: r.last_response_body,
    lastError: r.last_error,
    lastAttemptAt: r.last_attempt_at,
    createdAt: r.created_at,
    nextAttemptAt: r.next_attempt_at,
    resendRequested: r.resend_requested_at !== null,
  };
}

/** An endpoint's deliveries, newest first, optionally of one status and one event kind. */
export async function listDeliveries(db: Queries, owner: Owner, endpointId: string, f: DeliveryFilter): Promise<{ items: DeliveryView[]; total: number }> {
  await assertEndpointOf(db, owner, endpointId);
  const matching = webhookTables(db)
    .selectFrom('deliveries as d')
    .where('d.endpoint_id', '=', endpointId)
    .$if(f.status !== undefined, (q) => q.where('d.status', '=', f.status!))
    .$if(f.event !== undefined, (q) => q.where('d.event_type', '=', f.event!));
  const [rows, count] = await Promise.all([
    matching.select(COLUMNS).orderBy('d.created_at', 'desc').orderBy('d.id', 'desc').limit(f.limit).offset(f.offset).execute(),
    matching.select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('n')).executeTakeFirstOrThrow(),
  ]);
  return { items: rows.map(view), total: count.n };
}

/**
 * The deliveries of the owner's events about one object (`invoice` for the events whose body
 * has `invoice.id` = `id`), oldest first, each with where it went. `since` is when the object
 * was made: no event about it is older, so the scan is a range of the (merchant, mode, time)
 * index rather than every event the merchant ever had.
 */
export async function deliveriesOfObject(db: Queries, owner: Owner, object: { key: string; id: string; since: Date; limit: number }): Promise<ObjectDelivery[]> {
  const rows = await webhookTables(db)
    .selectFrom('events as e')
    .innerJoin('deliveries as d', 'd.event_id', 'e.id')
    .innerJoin('endpoints as p', 'p.id', 'd.endpoint_id')
    .select(COLUMNS)
    .select(['e.created_at as event_at', 'p.kind as endpoint_kind', 'p.url as endpoint_url'])
    .where('e.merchant_id', '=', owner.merchantId)
    .where('e.is_test', '=', owner.isTest)
    .where('e.created_at', '>=', object.since)
    .where(sql<string>`e.body -> ${object.key} ->> 'id'`, '=', object.id)
    .orderBy('d.created_at')
    .orderBy('d.id')
    .limit(object.limit)
    .execute();
  return rows.map((r) => ({ ...view(r), eventAt: r.event_at, endpointKind: r.endpoint_kind, endpointUrl: r.endpoint_url }));
}

/** An attempt's row as the console and the tests show it. */
export const attemptView = (r: Pick<Selectable<WebhookAttempt>, 'attempted_at' | 'duration_ms' | 'url' | 'status_code' | 'error' | 'response_body' | 'succeeded' | 'manual'>): AttemptView => ({
  attemptedAt: r.attempted_at,
  durationMs: r.duration_ms,
  url: r.url,
  statusCode: r.status_code,
  error: r.error,
  responseBody: r.response_body,
  succeeded: r.succeeded,
  manual: r.manual,
});

/** Every attempt of these deliveries, oldest first, by delivery id. */
export async function attemptsOf(db: Queries, deliveryIds: string[]): Promise<Map<string, AttemptView[]>> {
  if (deliveryIds.length === 0) return new Map();
  const rows = await webhookTables(db)
    .selectFrom('attempts')
    .select(['delivery_id', 'attempted_at', 'duration_ms', 'url', 'status_code', 'error', 'response_body', 'succeeded', 'manual'])
    .where('delivery_id', 'in', deliveryIds)
    .orderBy('attempted_at')
    .orderBy('id')
    .execute();
  const out = new Map<string, AttemptView[]>();
  for (const r of rows) {
    const list = out.get(r.delivery_id) ?? [];
    list.push(attemptView(r));
    out.set(r.delivery_id, list);
  }
  return out;
}

async function assertEndpointOf(db: Queries, owner: Owner, endpointId: string): Promise<void> {
  const row = await webhookTables(db).selectFrom('endpoints').select('id').where(ownEndpoint(owner, endpointId)).executeTakeFirst();
  if (!row) throw new ApiError('NOT_FOUND', `Webhook ${endpointId} not found`);
}

/**
 * Asks for a manual resend: the worker makes one more attempt with the same `X-SVC-Delivery`,
 * recorded as a new (manual) attempt. It does not count against the six of the schedule; a
 * success marks the delivery `succeeded`. Asked again before it is made, it is still one resend
 * (the first request's time is kept). With `endpointId`, the delivery must be that webhook's.
 */
export async function requestResend(db: Queries, owner: Owner, deliveryId: string, now: Date, endpointId?: string): Promise<DeliveryView> {
  const row = await webhookTables(db)
    .updateTable('deliveries as d')
    .set((eb) => ({ resend_requested_at: eb.fn.coalesce('d.resend_requested_at', eb.cast<Date>(eb.val(now), 'timestamptz')) }))
    .from('endpoints as e')
    .where('d.id', '=', deliveryId)
    .whereRef('e.id', '=', 'd.endpoint_id')
    .where('e.merchant_id', '=', owner.merchantId)
    .where('e.is_test', '=', owner.isTest)
    .$if(endpointId !== undefined, (q) => q.where('d.endpoint_id', '=', endpointId!))
    .returning(COLUMNS)
    .executeTakeFirst();
  if (!row) throw new ApiError('NOT_FOUND', `Delivery ${deliveryId} not found`);
  return view(row);
}

/**
 * The console's test action: a sample event of `kind` (by default the first the endpoint
 * subscribed to, else the catalogue's first) with the dummy payload its catalogue gives, for
 * this endpoint only, delivered like any other.
 */
export async function sendTestEvent<K extends string>(db: Transactions, events: EventCatalogue<K>, owner: Owner, endpointId: string, now: Date, kind?: K): Promise<DeliveryView> {
  return db.$transaction(async (tx) => {
    const endpoint = await webhookTables(tx).selectFrom('endpoints').select('events').where(consoleEndpoint(owner, endpointId)).executeTakeFirst();
    if (!endpoint) throw new ApiError('NOT_FOUND', `Webhook ${endpointId} not found`);
    const type = kind ?? ((endpoint.events[0] ?? events.kinds[0]) as K);
    const eventId = randomUUID();
    await insertEvent(tx, { id: eventId, source: events.source, owner, type, object: events.sample(type, now, !owner.isTest), at: now.getTime(), targetEndpointId: endpointId, dispatchedAt: now });
    const row = await webhookTables(tx)
      .insertInto('deliveries')
      .values({ id: randomUUID(), event_id: eventId, endpoint_id: endpointId, event_type: type, status: 'pending', attempts: 0, next_attempt_at: now, created_at: now })
      .returning(COLUMNS.map((c) => c.slice(2) as DeliveryColumn))
      .executeTakeFirstOrThrow();
    return view(row);
  });
}

/** How far back a replay may reach. */
export const REPLAY_WINDOW_MS = 30 * 24 * 60 * 60 * 1000;
/** A delivery attempted this recently is not sent again by a replay: a double click replays once. */
export const REPLAY_DEBOUNCE_MS = 60_000;

/**
 * Sends a webhook again every event since `since` of a kind it subscribes to, through the
 * deliveries the worker sends (the same path as every delivery):
 * - an event it has no delivery of (it subscribed later, or was made after) gets one, due now;
 * - a delivery that failed is put back on a fresh schedule (same id, first attempt now), one
 *   that succeeded gets a manual resend (same id: receivers deduplicate on X-SVC-Delivery), one
 *   waiting for a retry is brought forward to now.
 * Idempotent enough for a double click: the webhook's row is locked, so replays of it run one
 * after the other, and a delivery already asked for (a resend pending, an attempt due now) or
 * attempted in the last REPLAY_DEBOUNCE_MS is left alone. A disabled webhook is refused (enable
 * it first: its deliveries would fail unsent).
 */
export async function replaySince(db: Transactions, owner: Owner, endpointId: string, since: Date, now: Date): Promise<{ created: number; resent: number }> {
  if (since.getTime() < now.getTime() - REPLAY_WINDOW_MS || since.getTime() > now.getTime()) {
    const message = 'must be within the last 30 days';
    throw new ApiError('VALIDATION_ERROR', `since ${message}`, [{ field: 'since', message }]);
  }
  return db.$transaction(async (tx) => {
    const t = webhookTables(tx);
    const endpoint = await t.selectFrom('endpoints').select(['events', 'disabled_at']).where(consoleEndpoint(owner, endpointId)).forUpdate().executeTakeFirst();
    if (!endpoint) throw new ApiError('NOT_FOUND', `Webhook ${endpointId} not found`);
    if (endpoint.disabled_at) throw new ApiError('INVALID_STATE', `Webhook ${endpointId} is disabled: enable it (PATCH enabled: true) before replaying`);
    if (endpoint.events.length === 0) return { created: 0, resent: 0 };
    // The events this webhook is for: its merchant's and mode's, of a kind it subscribes to, sent
    // to the merchant's webhooks (not a v1 session's own URL, nor another webhook's test event).
    const events = t
      .selectFrom('events as ev')
      .select('ev.id')
      .where('ev.merchant_id', '=', owner.merchantId)
      .where('ev.is_test', '=', owner.isTest)
      .where('ev.source', '=', 'invoicing')
      .where('ev.target_url', 'is', null)
      .where((eb) => eb.or([eb('ev.target_endpoint_id', 'is', null), eb('ev.target_endpoint_id', '=', endpointId)]))
      .where('ev.created_at', '>=', since)
      .where('ev.type', 'in', endpoint.events);
    const created = await t
      .insertInto('deliveries')
      .columns(['id', 'event_id', 'endpoint_id', 'event_type', 'status', 'attempts', 'next_attempt_at', 'created_at'])
      .expression(
        t
          .selectFrom('events as e')
          .select((eb) => [
            sql<string>`gen_random_uuid()`.as('id'),
            'e.id as event_id',
            eb.val(endpointId).as('endpoint_id'),
            'e.type as event_type',
            sql.lit('pending').as('status'),
            sql.lit(0).as('attempts'),
            eb.cast<Date>(eb.val(now), 'timestamptz').as('next_attempt_at'),
            eb.cast<Date>(eb.val(now), 'timestamptz').as('created_at'),
          ])
          .where('e.id', 'in', events),
      )
      .onConflict((oc) => oc.columns(['event_id', 'endpoint_id']).doNothing())
      .executeTakeFirst();
    const since60 = new Date(now.getTime() - REPLAY_DEBOUNCE_MS);
    const resent = await t
      .updateTable('deliveries as d')
      .set((eb) => ({
        status: eb.case().when('d.status', '=', 'failed').then(sql.lit('pending')).else(eb.ref('d.status')).end(),
        attempts: eb.case().when('d.status', '=', 'failed').then(sql.lit(0)).else(eb.ref('d.attempts')).end(),
        next_attempt_at: eb.case().when('d.status', '=', 'succeeded').then(eb.ref('d.next_attempt_at')).else(eb.cast<Date>(eb.val(now), 'timestamptz')).end(),
        resend_requested_at: eb.case().when('d.status', '=', 'succeeded').then(eb.cast<Date>(eb.val(now), 'timestamptz')).else(eb.ref('d.resend_requested_at')).end(),
      }))
      .where('d.endpoint_id', '=', endpointId)
      .where('d.event_id', 'in', events)
      .where('d.resend_requested_at', 'is', null)
      .where((eb) => eb.not(eb.and([eb('d.status', '=', 'pending'), eb('d.next_attempt_at', '<=', now)])))
      .where((eb) => eb.not(eb.exists(eb.selectFrom('attempts as a').select(sql.lit(1).as('one')).whereRef('a.delivery_id', '=', 'd.id').where('a.attempted_at', '>', since60))))
      .executeTakeFirst();
    return { created: Number(created.numInsertedOrUpdatedRows ?? 0), resent: Number(resent.numUpdatedRows) };
  });
}
