// This package's store of `webhooks.events` as the services record them and tests read them
// back (../events.ts says what an event is; the worker's dispatch statements are ../store.ts).
import type { Owner } from '@pay/auth';
import { webhookTables, type Queries } from '../db';

export interface EventRow {
  id: string;
  source: string;
  merchant_id: string;
  is_test: boolean;
  type: string;
  /** The body as sent: its exact JSON text. */
  body: string;
  target_url: string | null;
  target_endpoint_id: string | null;
  created_at: Date;
  dispatched_at: Date | null;
}

/** The one INSERT of an event, in the caller's transaction. */
export async function insertEventRow(tx: Queries, row: EventRow): Promise<void> {
  await webhookTables(tx).insertInto('events').values(row).execute();
}

/** A merchant's events in one mode, in the order they were recorded (optionally of one kind), bodies as text. */
export function eventRowsOf(db: Queries, owner: Owner, type?: string): Promise<Omit<EventRow, 'target_endpoint_id' | 'dispatched_at'>[]> {
  return webhookTables(db)
    .selectFrom('events')
    .select((eb) => ['id', 'source', 'merchant_id', 'is_test', 'type', eb.cast<string>('body', 'text').as('body'), 'target_url', 'created_at'])
    .where('merchant_id', '=', owner.merchantId)
    .where('is_test', '=', owner.isTest)
    .$if(type !== undefined, (q) => q.where('type', '=', type!))
    .orderBy('seq')
    .execute();
}
