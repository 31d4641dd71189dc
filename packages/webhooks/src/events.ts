import { randomUUID } from 'node:crypto';
import type { Owner } from '@pay/auth';
import { stringifyExact } from '@pay/http';
import { compile, toDetails } from '@pay/schemas';
import type { TSchema } from '@sinclair/typebox';
import type { Queries } from './db';
import { eventRowsOf, insertEventRow } from './store/events';

/** The channel a trigger on the events table NOTIFYs at each commit that recorded events (migration notify_on_event). */
export const EVENTS_CHANNEL = 'webhooks_events';

/**
 * Which service recorded an event, which decides where it goes (dispatchEvents): `invoicing`
 * events to the console webhooks subscribed to their kind, `crypto` events to the merchant's
 * `webhookUrl`. The kinds and bodies are the service's own (its catalogue, defineEvents).
 */
export type EventSource = 'crypto' | 'invoicing';

export interface NewEvent {
  source: EventSource;
  owner: Owner;
  /** The event kind, e.g. `invoice.paid`. */
  type: string;
  /** The payload object under its key, e.g. `{ invoice: {...} }`; the envelope is added here. */
  object: Record<string, unknown>;
  /** Milliseconds since the epoch, from the service's clock (the body's `timestamp`). */
  at: number;
  /**
   * Deliver this event to this URL only (a v1 KYC session's own `webhookUrl`), signed with the
   * merchant's HMAC secret like every other delivery. Without it, the event goes to the
   * merchant's webhooks: crypto events to its `webhookUrl`, invoicing events to every console
   * webhook of the event's mode subscribed to its kind.
   */
  targetUrl?: string;
}

/** The envelope's fields of an event recorded now, in the order of catalogue.ts's eventEnvelope (the object's fields follow). */
export function envelopeOf(e: { id: string; source: EventSource; type: string; at: number; livemode: boolean }) {
  return { event: e.type, timestamp: e.at, livemode: e.livemode, id: e.id, type: e.type, createdAt: new Date(e.at).toISOString(), source: e.source };
}

/** The caller's transaction (`tx`), or its client outside one. */
type Tx = Queries;

/**
 * Records an event in the caller's transaction, so the event exists exactly when the change it
 * reports commits, and is never lost to a crash or a Redis restart. The body is the envelope
 * of every event: `{ event, timestamp, livemode, id, type, createdAt, source, <object> }` (catalogue.ts's eventEnvelope), serialised once here with exact
 * decimals and kept as that text, so every attempt sends the same bytes. The webhook worker
 * turns it into deliveries. Returns the event id.
 */
export async function recordEvent(tx: Tx, e: NewEvent): Promise<string> {
  const id = randomUUID();
  await insertEvent(tx, { id, ...e, targetEndpointId: null });
  return id;
}

/** The one INSERT of an event; the package's own test events name their endpoint and are dispatched at once. */
export async function insertEvent(
  tx: Tx,
  e: NewEvent & { id: string; targetEndpointId: string | null; dispatchedAt?: Date },
): Promise<void> {
  // The envelope is written here, for every event of every source: `livemode` from the
  // event's own mode, `id` its own (so every delivery, retry, resend and replay carries it).
  const body = stringifyExact({ ...envelopeOf({ id: e.id, source: e.source, type: e.type, at: e.at, livemode: !e.owner.isTest }), ...e.object });
  await insertEventRow(tx, {
    id: e.id,
    source: e.source,
    merchant_id: e.owner.merchantId,
    is_test: e.owner.isTest,
    type: e.type,
    body,
    target_url: e.targetUrl ?? null,
    target_endpoint_id: e.targetEndpointId,
    created_at: new Date(e.at),
    dispatched_at: e.dispatchedAt ?? null,
  });
}

export interface StoredEvent {
  id: string;
  source: EventSource;
  merchantId: string;
  isTest: boolean;
  type: string;
  body: Record<string, unknown>;
  /** The body exactly as it is sent. */
  rawBody: string;
  targetUrl: string | null;
  createdAt: Date;
}

/**
 * The documented body schema of each event kind, by source: each service's event catalogue
 * hands its own here when it is defined (defineEvents), so this package knows no kind itself.
 */
const documentedPayloads = new Map<EventSource, Record<string, TSchema>>();

/** Called by defineEvents (the package's index does not export it): not a second way to declare events. */
export function registerEventPayloads(source: EventSource, payloads: Record<string, TSchema>): void {
  documentedPayloads.set(source, payloads);
}

/** Throws unless `body` (a fresh copy: validation may fill defaults) matches its kind's documented schema. */
function assertDocumented(source: EventSource, type: string, body: unknown): void {
  const schema = documentedPayloads.get(source)?.[type];
  if (!schema) throw new Error(`${source} event ${type} has no documented body schema: declare it in its service's event catalogue (defineEvents)`);
  const validate = compile(schema);
  if (!validate(body)) {
    const problems = toDetails(validate.errors, '(body)').map((d) => `${d.field} ${d.message}`);
    throw new Error(`${source} event ${type} does not match its documented schema: ${problems.join('; ')}\n${JSON.stringify(body)}`);
  }
}

/**
 * A merchant's events in one mode, in the order they were recorded (optionally of one kind).
 * Tests read recorded events through here, so every body is checked against its documented
 * schema (the OpenAPI `webhooks` section is built from the same schemas): a body that drifts
 * from its documentation fails the test that recorded it.
 */
export async function eventsOf(db: Queries, owner: Owner, type?: string): Promise<StoredEvent[]> {
  const rows = await eventRowsOf(db, owner, type);
  for (const r of rows) assertDocumented(r.source as EventSource, r.type, JSON.parse(r.body));
  return rows.map((r) => ({
    id: r.id,
    source: r.source as EventSource,
    merchantId: r.merchant_id,
    isTest: r.is_test,
    type: r.type,
    body: JSON.parse(r.body) as Record<string, unknown>,
    rawBody: r.body,
    targetUrl: r.target_url,
    createdAt: r.created_at,
  }));
}
