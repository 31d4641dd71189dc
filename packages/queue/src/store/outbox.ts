// The outbox table (Postgres schema `queue`, see prisma/schema.prisma): every statement on it,
// on the caller's client or transaction.
import { sql } from 'kysely';
import { tablesOf, type Kysely, type Queries } from '@pay/db';
import type { DB } from '../generated/kysely/tables';

/**
 * The outbox table, owned by this package, on the caller's client or transaction (its
 * `$kysely`): qualified with its schema, since the caller's search_path is its own.
 */
export const queueTables = (on: Queries): Kysely<DB> => tablesOf<DB>(on, 'queue');

/** One job for the relay, written with the caller's client or transaction. */
export async function insertOutboxRow(on: Queries, row: { queue: string; jobId: string; payload: object }): Promise<void> {
  await queueTables(on).insertInto('outbox').values({ queue: row.queue, job_id: row.jobId, payload: JSON.stringify(row.payload) }).execute();
}

/** Deletes up to `batch` rows published before `before`, oldest first; returns how many. */
export async function deletePublishedBefore(on: Queries, before: Date, batch: number): Promise<number> {
  const t = queueTables(on);
  const res = await t
    .deleteFrom('outbox')
    .where('id', 'in', (eb) => eb.selectFrom('outbox').select('id').where('published_at', '<', before).orderBy('published_at').limit(batch))
    .executeTakeFirst();
  return Number(res.numDeletedRows);
}

/** Locks up to `limit` unpublished rows, oldest first, skipping those another relay holds (inside the caller's transaction). */
export function lockUnpublished(tx: Queries, limit: number) {
  return queueTables(tx)
    .selectFrom('outbox')
    .select(['id', 'queue', 'job_id', 'payload'])
    .where('published_at', 'is', null)
    .orderBy('id')
    .limit(limit)
    .forUpdate()
    .skipLocked()
    .execute();
}

/** Marks these rows published now. */
export async function markPublished(tx: Queries, ids: string[]): Promise<void> {
  await queueTables(tx)
    .updateTable('outbox')
    .set({ published_at: sql`now()` })
    .where('id', '=', (eb) => eb.fn.any(eb.val(ids).$castTo<string[]>()))
    .execute();
}

/** Rows not yet published, and when the oldest of them was written. */
export async function unpublishedBacklog(on: Queries): Promise<{ pending: number; oldest: Date | null }> {
  const row = await queueTables(on)
    .selectFrom('outbox')
    .select((eb) => [eb.cast<number>(eb.fn.countAll(), 'integer').as('pending'), eb.fn.min('created_at').as('oldest')])
    .where('published_at', 'is', null)
    .executeTakeFirstOrThrow();
  return { pending: row.pending, oldest: row.oldest ? new Date(row.oldest as Date | string) : null };
}
