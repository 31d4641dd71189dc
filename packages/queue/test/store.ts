// The outbox table as tests read and set it: named here, in the owner's store, and nowhere else.
// Each function takes the `Queries` of the database it reads: the jest worker's, or a whole
// stack's (e2e), since it names the table with its schema.
import { sql } from 'kysely';
import type { Queries, Transactions } from '@pay/db';
import { queueTables } from '../src/store/outbox';

/** Rows not yet published (`pending`), the relay's own count, for a test waiting until nothing is left. */
export { unpublishedBacklog } from '../src/store/outbox';

/** A job's outbox row, or undefined. */
export function outboxRow(db: Queries, jobId: string) {
  return queueTables(db).selectFrom('outbox').select(['queue', 'payload', 'published_at']).where('job_id', '=', jobId).executeTakeFirst();
}

/** Every outbox row of a job id, in any queue: a job written twice shows twice. */
export function outboxRowsOfJob(db: Queries, jobId: string) {
  return queueTables(db).selectFrom('outbox').select(['queue', 'payload']).where('job_id', '=', jobId).orderBy('id').execute();
}

/** Each queue's rows (`n`), distinct job ids (`jobs`) and published rows (`published`), by queue. */
export function outboxCountsByQueue(db: Queries): Promise<{ queue: string; n: number; jobs: number; published: number }[]> {
  return queueTables(db)
    .selectFrom('outbox')
    .select((eb) => [
      'queue',
      eb.cast<number>(eb.fn.countAll(), 'integer').as('n'),
      eb.cast<number>(eb.fn.count('job_id').distinct(), 'integer').as('jobs'),
      eb.cast<number>(eb.fn.count('published_at'), 'integer').as('published'),
    ])
    .groupBy('queue')
    .orderBy('queue')
    .execute();
}

/** Writes rows as they would stand after a time (written and published when given). */
export async function insertOutboxRows(db: Queries, rows: { queue: string; jobId: string; payload?: string; createdAt: Date; publishedAt: Date | null }[]): Promise<void> {
  await queueTables(db)
    .insertInto('outbox')
    .values(rows.map((r) => ({ queue: r.queue, job_id: r.jobId, payload: r.payload ?? '{}', created_at: r.createdAt, published_at: r.publishedAt })))
    .execute();
}

/** The job ids of a queue's rows, in order. */
export async function outboxJobIdsOf(db: Queries, queue: string): Promise<string[]> {
  const rows = await queueTables(db).selectFrom('outbox').select('job_id').where('queue', '=', queue).orderBy('job_id').execute();
  return rows.map((r) => r.job_id);
}

/** Marks rows published now: one job's, or every row still waiting. */
export async function publishOutbox(db: Queries, jobId?: string): Promise<void> {
  await queueTables(db)
    .updateTable('outbox')
    .set({ published_at: sql`now()` })
    .$if(jobId === undefined, (q) => q.where('published_at', 'is', null))
    .$if(jobId !== undefined, (q) => q.where('job_id', '=', jobId!))
    .execute();
}

/** Makes a job's row look written `seconds` ago. */
export async function ageOutboxRow(db: Queries, jobId: string, seconds: number): Promise<void> {
  await queueTables(db)
    .updateTable('outbox')
    .set({ created_at: sql`now() - cast(${seconds} as integer) * interval '1 second'` })
    .where('job_id', '=', jobId)
    .execute();
}

/**
 * Runs `during` while a job's row is locked as a relay's claim locks it (FOR UPDATE): relays
 * claim with SKIP LOCKED, so none moves the row meanwhile, while plain reads (the backlog
 * gauge) still see it unpublished.
 */
export function whileOutboxRowLocked<T>(db: Transactions, jobId: string, during: () => Promise<T>): Promise<T> {
  return db.$transaction(async (tx) => {
    await queueTables(tx).selectFrom('outbox').select('id').where('job_id', '=', jobId).forUpdate().execute();
    return during();
  });
}

/** Deletes a job's row. */
export async function deleteOutboxRow(db: Queries, jobId: string): Promise<void> {
  await queueTables(db).deleteFrom('outbox').where('job_id', '=', jobId).execute();
}
