import { randomUUID } from 'node:crypto';
import type { Owner } from '@pay/auth';

/** The events table, owned by this package (Postgres schema `webhooks`). */
const EVENTS = 'webhooks.events';

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
}

/** Any service's transaction client: its Prisma client or an interactive transaction. */
type Tx = { $executeRawUnsafe(query: string, ...values: unknown[]): Promise<number> };

/**
 * Records an event in the caller's transaction, so the event exists exactly when the change it
 * reports commits, and is never lost to a crash or a Redis restart. The body is the envelope
 * of decisions.md §7: `{ event, timestamp, <object> }`. Returns the event id.
 */
export async function recordEvent(tx: Tx, e: NewEvent): Promise<string> {
  const id = randomUUID();
  const body = { event: e.type, timestamp: e.at, ...e.object };
  await tx.$executeRawUnsafe(
    `INSERT INTO ${EVENTS} (id, source, merchant_id, is_test, type, body, created_at) VALUES ($1::uuid, $2, $3::uuid, $4, $5, $6::jsonb, $7)`,
    id,
    e.source,
    e.owner.merchantId,
    e.owner.isTest,
    e.type,
    JSON.stringify(body),
    new Date(e.at),
  );
  return id;
}

export interface StoredEvent {
  id: string;
  source: EventSource;
  merchantId: string;
  isTest: boolean;
  type: string;
  body: Record<string, unknown>;
  createdAt: Date;
}

/** A merchant's events in one mode, in the order they were recorded (optionally of one kind). */
export async function eventsOf(
  db: { $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T> },
  owner: Owner,
  type?: string,
): Promise<StoredEvent[]> {
  const rows = await db.$queryRawUnsafe<(Omit<StoredEvent, 'merchantId' | 'isTest' | 'createdAt'> & { merchant_id: string; is_test: boolean; created_at: Date })[]>(
    `SELECT id::text, source, merchant_id::text, is_test, type, body, created_at FROM ${EVENTS}
      WHERE merchant_id = $1::uuid AND is_test = $2 AND ($3::text IS NULL OR type = $3) ORDER BY seq`,
    owner.merchantId,
    owner.isTest,
    type ?? null,
  );
  return rows.map(({ merchant_id, is_test, created_at, ...r }) => ({ ...r, merchantId: merchant_id, isTest: is_test, createdAt: created_at }));
}
