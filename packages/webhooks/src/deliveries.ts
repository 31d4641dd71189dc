import { randomUUID } from 'node:crypto';
import { ApiError } from '@pay/schemas';
import type { Owner } from '@pay/auth';
import type { Sql, SqlWithTransactions } from './db';
import { insertEvent } from './events';
import { sampleObject, type InvoicingEventKind } from './payloads';

const ENDPOINTS = 'webhooks.endpoints';
const DELIVERIES = 'webhooks.deliveries';
const ATTEMPTS = 'webhooks.attempts';

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface DeliveryView {
  id: string;
  endpointId: string;
  event: string;
  status: DeliveryStatus;
  /** Scheduled attempts made (manual resends are listed in the history, not counted here). */
  attempts: number;
  lastStatusCode: number | null;
  /** The first 1 KB of the last answer. */
  lastResponseBody: string | null;
  lastError: string | null;
  lastAttemptAt: Date | null;
  createdAt: Date;
  nextAttemptAt: Date | null;
  resendRequested: boolean;
}

export interface AttemptView {
  attemptedAt: Date;
  durationMs: number;
  url: string;
  statusCode: number | null;
  error: string | null;
  responseBody: string | null;
  succeeded: boolean;
  manual: boolean;
}

interface DeliveryRow {
  id: string;
  endpoint_id: string;
  event_type: string;
  status: DeliveryStatus;
  attempts: number;
  last_status_code: number | null;
  last_response_body: string | null;
  last_error: string | null;
  last_attempt_at: Date | null;
  created_at: Date;
  next_attempt_at: Date | null;
  resend_requested_at: Date | null;
}

const COLUMNS =
  'd.id::text, d.endpoint_id::text, d.event_type, d.status, d.attempts, d.last_status_code, d.last_response_body, d.last_error, d.last_attempt_at, d.created_at, d.next_attempt_at, d.resend_requested_at';

function view(r: DeliveryRow): DeliveryView {
  return {
    id: r.id,
    endpointId: r.endpoint_id,
    event: r.event_type,
    status: r.status,
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

export interface DeliveryFilter {
  status?: DeliveryStatus;
  event?: string;
  limit: number;
  offset: number;
}

/** An endpoint's deliveries, newest first, optionally of one status and one event kind. */
export async function listDeliveries(db: Sql, owner: Owner, endpointId: string, f: DeliveryFilter): Promise<{ items: DeliveryView[]; total: number }> {
  await assertEndpointOf(db, owner, endpointId);
  const where = `d.endpoint_id = $1::uuid AND ($2::text IS NULL OR d.status = $2) AND ($3::text IS NULL OR d.event_type = $3)`;
  const args = [endpointId, f.status ?? null, f.event ?? null];
  const [rows, [count]] = await Promise.all([
    db.$queryRawUnsafe<DeliveryRow[]>(
      `SELECT ${COLUMNS} FROM ${DELIVERIES} d WHERE ${where} ORDER BY d.created_at DESC, d.id DESC LIMIT $4 OFFSET $5`,
      ...args,
      f.limit,
      f.offset,
    ),
    db.$queryRawUnsafe<{ n: number }[]>(`SELECT count(*)::int AS n FROM ${DELIVERIES} d WHERE ${where}`, ...args),
  ]);
  return { items: rows.map(view), total: count!.n };
}

/** Every attempt of these deliveries, oldest first, by delivery id. */
export async function attemptsOf(db: Sql, deliveryIds: string[]): Promise<Map<string, AttemptView[]>> {
  const rows = await db.$queryRawUnsafe<
    { delivery_id: string; attempted_at: Date; duration_ms: number; url: string; status_code: number | null; error: string | null; response_body: string | null; succeeded: boolean; manual: boolean }[]
  >(
    `SELECT delivery_id::text, attempted_at, duration_ms, url, status_code, error, response_body, succeeded, manual
       FROM ${ATTEMPTS} WHERE delivery_id = ANY($1::uuid[]) ORDER BY attempted_at, id`,
    deliveryIds,
  );
  const out = new Map<string, AttemptView[]>();
  for (const r of rows) {
    const list = out.get(r.delivery_id) ?? [];
    list.push({
      attemptedAt: r.attempted_at,
      durationMs: r.duration_ms,
      url: r.url,
      statusCode: r.status_code,
      error: r.error,
      responseBody: r.response_body,
      succeeded: r.succeeded,
      manual: r.manual,
    });
    out.set(r.delivery_id, list);
  }
  return out;
}

async function assertEndpointOf(db: Sql, owner: Owner, endpointId: string): Promise<void> {
  const [row] = await db.$queryRawUnsafe<{ id: string }[]>(
    `SELECT id::text FROM ${ENDPOINTS} WHERE id = $1::uuid AND merchant_id = $2::uuid AND is_test = $3`,
    endpointId,
    owner.merchantId,
    owner.isTest,
  );
  if (!row) throw new ApiError('NOT_FOUND', `Webhook ${endpointId} not found`);
}

/**
 * Asks for a manual resend: the worker makes one more attempt with the same `X-SVC-Delivery`,
 * recorded as a new (manual) attempt. It does not count against the six of the schedule; a
 * success marks the delivery `succeeded`.
 */
export async function requestResend(db: Sql, owner: Owner, deliveryId: string, now: Date): Promise<DeliveryView> {
  const [row] = await db.$queryRawUnsafe<DeliveryRow[]>(
    `UPDATE ${DELIVERIES} d SET resend_requested_at = $4 FROM ${ENDPOINTS} e
      WHERE d.id = $1::uuid AND e.id = d.endpoint_id AND e.merchant_id = $2::uuid AND e.is_test = $3
      RETURNING ${COLUMNS}`,
    deliveryId,
    owner.merchantId,
    owner.isTest,
    now,
  );
  if (!row) throw new ApiError('NOT_FOUND', `Delivery ${deliveryId} not found`);
  return view(row);
}

/**
 * The console's test action: a sample event of `kind` (by default the first the endpoint
 * subscribed to) with a dummy payload, for this endpoint only, delivered like any other.
 */
export async function sendTestEvent(db: SqlWithTransactions, owner: Owner, endpointId: string, now: Date, kind?: InvoicingEventKind): Promise<DeliveryView> {
  return db.$transaction(async (tx) => {
    const [endpoint] = await tx.$queryRawUnsafe<{ events: string[] }[]>(
      `SELECT events FROM ${ENDPOINTS} WHERE id = $1::uuid AND merchant_id = $2::uuid AND is_test = $3 AND kind = 'console'`,
      endpointId,
      owner.merchantId,
      owner.isTest,
    );
    if (!endpoint) throw new ApiError('NOT_FOUND', `Webhook ${endpointId} not found`);
    const type = kind ?? ((endpoint.events[0] ?? 'invoice.paid') as InvoicingEventKind);
    const eventId = randomUUID();
    await insertEvent(tx, { id: eventId, source: 'invoicing', owner, type, object: sampleObject(type, now), at: now.getTime(), targetEndpointId: endpointId, dispatchedAt: now });
    const [row] = await tx.$queryRawUnsafe<DeliveryRow[]>(
      `INSERT INTO ${DELIVERIES} AS d (id, event_id, endpoint_id, event_type, status, attempts, next_attempt_at, created_at)
       VALUES ($1::uuid, $2::uuid, $3::uuid, $4, 'pending', 0, $5, $5) RETURNING ${COLUMNS}`,
      randomUUID(),
      eventId,
      endpointId,
      type,
      now,
    );
    return view(row!);
  });
}
