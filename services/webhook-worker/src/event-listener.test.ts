import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { createLogger } from '@pay/runtime';
import { eventually } from '@pay/testing';
import { createWebhooksDb, EVENTS_CHANNEL, recordEvent } from '@pay/webhooks';
import { loadWorkerConfig } from './config';
import { listenForEvents } from './event-listener';

const config = loadWorkerConfig();
const db = createWebhooksDb(config.DATABASE_URL, 2);
const logger = createLogger('webhook-worker', config.LOG_LEVEL);
const owner = { merchantId: randomUUID(), isTest: true };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

afterAll(() => db.$close());

const record = (tx: Parameters<typeof recordEvent>[0]) => recordEvent(tx, { source: 'invoicing', owner, type: 'invoice.paid', object: { invoice: { id: randomUUID() } }, at: Date.now() });

describe('event notifications', () => {
  it('arrive at the commit of events, once per transaction, never for a rollback, and survive a lost connection', async () => {
    let calls = 0;
    const listener = listenForEvents({ databaseUrl: config.DATABASE_URL, logger, onEvent: () => calls++, retryMs: 20 });
    try {
      await eventually(() => expect(listener.listening).toBe(true));
      const start = calls; // one call when listening starts

      await db.$transaction(async (tx) => {
        for (let i = 0; i < 5; i++) await record(tx);
        await sleep(100);
        expect(calls).toBe(start); // nothing before the commit
      });
      await eventually(() => expect(calls).toBe(start + 1)); // five events, one notification

      await db
        .$transaction(async (tx) => {
          await record(tx);
          throw new Error('roll back');
        })
        .catch(() => undefined);
      await sleep(200);
      expect(calls).toBe(start + 1);

      // The listening connection is killed (a Postgres restart, a proxy timeout): it comes back by itself.
      const listeners = async () =>
        (await sql<{ pid: number }>`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query = ${`LISTEN "${EVENTS_CHANNEL}"`}`.execute(db.$kysely)).rows.map((r) => r.pid);
      const [killed] = await listeners();
      expect(killed).toBeDefined();
      await sql`SELECT pg_terminate_backend(${killed})`.execute(db.$kysely);
      await eventually(async () => {
        const now = await listeners();
        expect(now.length).toBe(1);
        expect(now[0]).not.toBe(killed);
        expect(listener.listening).toBe(true);
      });
      const after = calls;
      await record(db);
      await eventually(() => expect(calls).toBe(after + 1));
    } finally {
      await listener.close();
    }
  });
});
