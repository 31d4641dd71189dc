import { randomUUID } from 'node:crypto';
import { metricsRegistry, pgPool, pgSql } from '@pay/kit';
import { eventually } from '@pay/testing';
import { writeOutbox } from './outbox';
import { watchOutbox } from './metrics';

/** The outbox backlog as /metrics reports it while a relay runs: rows not yet moved onto their queues, and the oldest one's age. */
describe('outbox metrics', () => {
  const pool = pgPool(process.env.DATABASE_URL!, 'queue', 2);
  const db = pgSql(pool);
  afterAll(() => pool.end());

  const gauge = async (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(await metricsRegistry.metrics())?.[1]);

  it('counts unpublished rows and ages the oldest, from the database at each scrape', async () => {
    const unwatch = watchOutbox(db);
    const jobId = `metrics-${randomUUID()}`;
    try {
      // Nothing else relays this worker's database while this file runs: publish what earlier files left.
      await db.$executeRawUnsafe(`UPDATE queue.outbox SET published_at = now() WHERE published_at IS NULL`);
      await writeOutbox(db, { queue: 'metrics-test', jobId, payload: {} });
      await db.$executeRawUnsafe(`UPDATE queue.outbox SET created_at = now() - interval '90 seconds' WHERE job_id = $1`, jobId);
      // A scrape reads the database at most once a second: a later read sees the row (and any
      // written since by something else, all of them younger).
      await eventually(async () => expect(await gauge('outbox_lag_seconds')).toBeGreaterThanOrEqual(90));
      expect(await gauge('outbox_pending')).toBeGreaterThanOrEqual(1);
      await db.$executeRawUnsafe(`UPDATE queue.outbox SET published_at = now() WHERE job_id = $1`, jobId);
      await eventually(async () => expect(await gauge('outbox_lag_seconds')).toBeLessThan(90));
    } finally {
      unwatch();
      await db.$executeRawUnsafe(`DELETE FROM queue.outbox WHERE job_id = $1`, jobId);
    }
  });
});
