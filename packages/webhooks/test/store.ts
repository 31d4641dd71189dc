// The webhooks tables as tests and the bench read and set them (through @pay/webhooks/test):
// what a test checks of the rows, named here, by the tables' owner, and nowhere else. Each
// function takes the `Queries` of the database it reads: the jest worker's, or a whole stack's
// (e2e, chaos, bench: `createWebhooksDb(stack's url)`), since it names its tables with their schema.
import { sql, type Selectable } from 'kysely';
import { webhookTables, type Queries } from '../src/db';
import type { AttemptView } from '../src/deliveries';
import { attemptsOf, attemptView } from '../src/store/deliveries';
import type { WebhookAttempt, WebhookDelivery, WebhookEndpoint } from '../src/generated/kysely/tables';

/** A delivery's row, its columns named as the code names them. */
export interface DeliveryRow {
  id: string;
  eventId: string;
  endpointId: string;
  eventType: string;
  status: string;
  attempts: number;
  nextAttemptAt: Date | null;
  resendRequestedAt: Date | null;
  leaseOwner: string | null;
  lastAttemptAt: Date | null;
  lastStatusCode: number | null;
  lastError: string | null;
  lastResponseBody: string | null;
  createdAt: Date;
}

/** An attempt's row: what the console shows of it, with its ids. */
export interface AttemptRow extends AttemptView {
  id: string;
  deliveryId: string;
}

/** An endpoint's state as the worker leaves it (failing streak, disabling). */
export interface EndpointState {
  id: string;
  failingSince: Date | null;
  disabledAt: Date | null;
  disabledReason: string | null;
}

const delivery = (r: Selectable<WebhookDelivery>): DeliveryRow => ({
  id: r.id,
  eventId: r.event_id,
  endpointId: r.endpoint_id,
  eventType: r.event_type,
  status: r.status,
  attempts: r.attempts,
  nextAttemptAt: r.next_attempt_at,
  resendRequestedAt: r.resend_requested_at,
  leaseOwner: r.lease_owner,
  lastAttemptAt: r.last_attempt_at,
  lastStatusCode: r.last_status_code,
  lastError: r.last_error,
  lastResponseBody: r.last_response_body,
  createdAt: r.created_at,
});

const attempt = (r: Selectable<WebhookAttempt>): AttemptRow => ({ id: String(r.id), deliveryId: r.delivery_id, ...attemptView(r) });

/**
 * Deliveries left pending (or asked to be resent) by earlier runs, to receivers long closed,
 * become failed, and events not yet dispatched are marked dispatched: a suite on a shared test
 * database then claims only its own work.
 */
export async function settleEarlierDeliveries(db: Queries): Promise<void> {
  const t = webhookTables(db);
  await t
    .updateTable('deliveries')
    .set({ status: 'failed', next_attempt_at: null, resend_requested_at: null })
    .where((eb) => eb.or([eb('status', '=', 'pending'), eb('resend_requested_at', 'is not', null)]))
    .execute();
  await t.updateTable('events').set({ dispatched_at: new Date() }).where('dispatched_at', 'is', null).execute();
}

/** The deliveries of an event, oldest first. */
export async function deliveriesOfEvent(db: Queries, eventId: string): Promise<DeliveryRow[]> {
  const rows = await webhookTables(db).selectFrom('deliveries').selectAll().where('event_id', '=', eventId).orderBy('created_at').orderBy('id').execute();
  return rows.map(delivery);
}

/** The deliveries to an endpoint, oldest first. */
export async function deliveriesToEndpoint(db: Queries, endpointId: string): Promise<DeliveryRow[]> {
  const rows = await webhookTables(db).selectFrom('deliveries').selectAll().where('endpoint_id', '=', endpointId).orderBy('created_at').orderBy('id').execute();
  return rows.map(delivery);
}

/** How many deliveries there are of each status (of those created since `createdSince`, when given). */
export async function deliveryCountsByStatus(db: Queries, createdSince?: Date): Promise<Record<string, number>> {
  const rows = await webhookTables(db)
    .selectFrom('deliveries')
    .select((eb) => ['status', eb.cast<number>(eb.fn.countAll(), 'integer').as('n')])
    .$if(createdSince !== undefined, (q) => q.where('created_at', '>=', createdSince!))
    .groupBy('status')
    .execute();
  return Object.fromEntries(rows.map((r) => [r.status, r.n]));
}

/**
 * The deliveries not succeeded, counted by what became of them: `pending after 1 attempt: read
 * ECONNRESET`, `pending after 0 attempts`, `failed after 6 attempts: HTTP 500`. Empty when every
 * delivery succeeded; a test that waits for that names the cause when it gives up.
 */
export async function unsucceededDeliveries(db: Queries): Promise<Record<string, number>> {
  const rows = await webhookTables(db)
    .selectFrom('deliveries')
    .select(['status', 'attempts', 'last_error', 'last_status_code'])
    .where('status', '!=', 'succeeded')
    .execute();
  const counts: Record<string, number> = {};
  for (const r of rows) {
    const cause = r.last_error ?? (r.last_status_code === null ? null : `HTTP ${r.last_status_code}`);
    const key = `${r.status} after ${r.attempts} attempt${r.attempts === 1 ? '' : 's'}${cause ? `: ${cause}` : ''}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

/** Every delivery's id. */
export async function deliveryIds(db: Queries): Promise<string[]> {
  const rows = await webhookTables(db).selectFrom('deliveries').select('id').execute();
  return rows.map((r) => r.id);
}

/**
 * The succeeded deliveries (`deliveries`) and their distinct (event, endpoint) pairs (`pairs`),
 * with every attempt (`attempts`) and the distinct deliveries attempted (`attempted`): equal
 * when each delivery was made once and sent in one attempt.
 */
export async function succeededDeliveryTotals(db: Queries): Promise<{ deliveries: number; pairs: number; attempts: number; attempted: number }> {
  return webhookTables(db)
    .selectFrom('deliveries')
    .select((eb) => [
      eb.cast<number>(eb.fn.countAll(), 'integer').as('deliveries'),
      eb.cast<number>(eb.fn.count(eb.refTuple('event_id', 'endpoint_id')).distinct(), 'integer').as('pairs'),
      eb.cast<number>(eb.selectFrom('attempts').select((s) => s.fn.countAll().as('n')), 'integer').as('attempts'),
      eb.cast<number>(eb.selectFrom('attempts').select((s) => s.fn.count('delivery_id').distinct().as('n')), 'integer').as('attempted'),
    ])
    .where('status', '=', 'succeeded')
    .executeTakeFirstOrThrow();
}

/** A delivery attempted more than once: its state and every attempt, oldest first. */
export interface RepeatedDelivery {
  id: string;
  status: string;
  attempts: number;
  tries: AttemptView[];
}

/**
 * Every delivery attempted more than once: empty when each was sent in one attempt. A test
 * that expects one attempt each shows this, so a failure tells a second send of a delivery
 * held by two workers (two successes) from a retry after a failed attempt.
 */
export async function repeatedAttempts(db: Queries): Promise<RepeatedDelivery[]> {
  const t = webhookTables(db);
  const rows = await t
    .selectFrom('deliveries')
    .select(['id', 'status', 'attempts'])
    .where('id', 'in', t.selectFrom('attempts').select('delivery_id').groupBy('delivery_id').having((eb) => eb.fn.countAll(), '>', 1))
    .orderBy('id')
    .execute();
  const tries = await attemptsOf(db, rows.map((r) => r.id));
  return rows.map((r) => ({ ...r, tries: tries.get(r.id) ?? [] }));
}

/** Each endpoint (its id and kind) with how many deliveries it has, none included. */
export function deliveriesPerEndpoint(db: Queries): Promise<{ id: string; kind: string; n: number }[]> {
  return webhookTables(db)
    .selectFrom('endpoints as e')
    .leftJoin('deliveries as d', 'd.endpoint_id', 'e.id')
    .select((eb) => ['e.id', 'e.kind', eb.cast<number>(eb.fn.count('d.id'), 'integer').as('n')])
    .groupBy(['e.id', 'e.kind'])
    .execute();
}

/**
 * Percentiles (`fractions`, e.g. [0.5, 0.99]) of the milliseconds from an event's recording to
 * the end of an attempt to deliver it, over the attempts of events recorded since `since`;
 * null when there were none.
 */
export async function attemptLatencyPercentiles(db: Queries, since: Date, fractions: number[]): Promise<number[] | null> {
  const row = await webhookTables(db)
    .selectFrom('attempts as a')
    .innerJoin('deliveries as d', 'd.id', 'a.delivery_id')
    .innerJoin('events as e', 'e.id', 'd.event_id')
    .select(
      sql<number[] | null>`percentile_cont(${fractions}::float8[]) WITHIN GROUP (ORDER BY extract(epoch FROM (${sql.ref('a.attempted_at')} - ${sql.ref('e.created_at')})) * 1000 + ${sql.ref('a.duration_ms')})`.as('p'),
    )
    .where('e.created_at', '>=', since)
    .executeTakeFirstOrThrow();
  return row.p;
}

/**
 * How many events there are of each source, type and subject: the subject is the `id` of the
 * first of `subjectKeys` that the body holds (`['refund', 'invoice']`: a refund's id, else its
 * invoice's), null when it holds none. Only events of `only.source` and `only.types` when given.
 */
export async function eventsPerSubject(
  db: Queries,
  subjectKeys: string[],
  only: { source?: string; types?: string[] } = {},
): Promise<{ source: string; type: string; subject: string | null; n: number }[]> {
  const t = webhookTables(db);
  const subject = sql<string | null>`coalesce(${sql.join(subjectKeys.map((key) => sql`${sql.ref('body')} -> ${key}::text ->> 'id'`))})`;
  const events = t
    .selectFrom('events')
    .select(['source', 'type', subject.as('subject')])
    .$if(only.source !== undefined, (q) => q.where('source', '=', only.source!))
    .$if(only.types !== undefined, (q) => q.where('type', 'in', only.types!));
  return t
    .selectFrom(events.as('e'))
    .select((eb) => ['e.source', 'e.type', 'e.subject', eb.cast<number>(eb.fn.countAll(), 'integer').as('n')])
    .groupBy(['e.source', 'e.type', 'e.subject'])
    .orderBy('e.source')
    .orderBy('e.type')
    .orderBy('e.subject')
    .execute();
}

/** The attempts of a delivery, in the order they were made. */
export async function attemptsOfDelivery(db: Queries, deliveryId: string): Promise<AttemptRow[]> {
  const rows = await webhookTables(db).selectFrom('attempts').selectAll().where('delivery_id', '=', deliveryId).orderBy('id').execute();
  return rows.map(attempt);
}

/** The attempts made to any of these URLs, in the order they were made. */
export async function attemptsToUrls(db: Queries, urls: string[]): Promise<AttemptRow[]> {
  const rows = await webhookTables(db).selectFrom('attempts').selectAll().where('url', 'in', urls).orderBy('id').execute();
  return rows.map(attempt);
}

/** An endpoint's failing streak and disabling, as stored. */
export async function endpointState(db: Queries, id: string): Promise<EndpointState> {
  const r: Pick<Selectable<WebhookEndpoint>, 'id' | 'failing_since' | 'disabled_at' | 'disabled_reason'> = await webhookTables(db)
    .selectFrom('endpoints')
    .select(['id', 'failing_since', 'disabled_at', 'disabled_reason'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  return { id: r.id, failingSince: r.failing_since, disabledAt: r.disabled_at, disabledReason: r.disabled_reason };
}

/** Disables an endpoint as the worker does after 3 days of failures, without the 3 days. */
export async function disableEndpoint(db: Queries, id: string, at: Date, reason: string): Promise<void> {
  await webhookTables(db).updateTable('endpoints').set({ disabled_at: at, disabled_reason: reason, updated_at: at }).where('id', '=', id).execute();
}
