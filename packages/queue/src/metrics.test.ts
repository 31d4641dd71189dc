import { randomUUID } from 'node:crypto';
import { testDb } from '@pay/db/src/testing';
import { metricsRegistry } from '@pay/runtime';
import { eventually } from '@pay/testing';
import { writeOutbox } from './outbox';
import { watchOutbox } from './metrics';
import { ageOutboxRow, deleteOutboxRow, publishOutbox, whileOutboxRowLocked } from '../test';

/** The outbox backlog as /metrics reports it while a relay runs: rows not yet moved onto their queues, and the oldest one's age. */
describe('outbox metrics', () => {
  const db = testDb('queue', 2);
  afterAll(() => db.$close());

  const gauge = async (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(await metricsRegistry.metrics())?.[1]);

  it('counts unpublished rows and ages the oldest, from the database at each scrape', async () => {
    const unwatch = watchOutbox(db);
    const jobId = `metrics-${randomUUID()}`;
    try {
      // Nothing else relays this worker's database while this file runs: publish what earlier files left.
      await publishOutbox(db);
      await writeOutbox(db, { queue: 'metrics-test', jobId, payload: {} });
      await ageOutboxRow(db, jobId, 90);
      // A scrape reads the database at most once a second: a later read sees the row (and any
      // written since by something else, all of them younger). The row stays locked meanwhile:
      // a relay still stopping from an earlier file of this worker moved it once (CI, gauge 0).
      await whileOutboxRowLocked(db, jobId, async () => {
        await eventually(async () => expect(await gauge('outbox_lag_seconds')).toBeGreaterThanOrEqual(90));
        expect(await gauge('outbox_pending')).toBeGreaterThanOrEqual(1);
      });
      await publishOutbox(db, jobId);
      await eventually(async () => expect(await gauge('outbox_lag_seconds')).toBeLessThan(90));
    } finally {
      unwatch();
      await deleteOutboxRow(db, jobId);
    }
  });
});
