import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { SecretBox } from '@pay/auth';
import { eventually, idleStackEnv } from '@pay/testing';
import { deliveriesOfEvent } from '../../test/store';
import { createWebhooksDb, type WebhooksDb } from '../db';
import { recordEvent } from '../events';
import { claimDue, dispatchEvents, heartbeat } from '../store';
import { createEndpoint } from './endpoints';

/**
 * The claim (../store.ts, CLAIM), on a database of this file's own.
 *
 * It runs as a prepared statement, so Postgres plans it once per connection and keeps
 * the plan. Made from the statistics of a new database (empty tables), or of a live one (where
 * nearly every delivery has succeeded, so pending ones look rare), a plan with joins walked
 * the due index for every chosen row and scanned whole tables: a backlog of 40,000 drained at
 * about a quarter of the speed (bench/README.md). The first test holds the claim to its shape
 * through Postgres's own counters: after the one ordered scan, rows are reached by key only.
 */
const DELIVERIES = 2000;
const LIMIT = 400;

let url: string;
let admin: pg.Client;
let db: WebhooksDb;

beforeAll(async () => {
  // A database of this file's own: its statistics are a new database's, and stay so.
  url = (await idleStackEnv('claim_plan')).DATABASE_URL;
  admin = new pg.Client({ connectionString: url });
  await admin.connect();
  for (const table of ['deliveries', 'events', 'endpoints']) await admin.query(`ALTER TABLE webhooks.${table} SET (autovacuum_enabled = false)`);
  // The plan the first execution makes is the one every later execution uses, as happens once
  // Postgres settles on a generic plan; here the first execution finds the tables empty.
  await admin.query(`ALTER DATABASE "${new URL(url).pathname.slice(1)}" SET plan_cache_mode = force_generic_plan`);
  db = createWebhooksDb(url, 1);
}, 60_000);

afterAll(async () => {
  await db?.$disconnect();
  await admin?.end();
});

interface Counters {
  seqScans: number;
  fetchedByIndex: number;
}

/** Scans and index fetches of webhooks tables so far, once every backend has reported its own. */
async function counters(): Promise<Record<string, Counters>> {
  // A backend reports its counters when it goes idle, at most once a second unless forced.
  await admin.query('SELECT pg_stat_force_next_flush()');
  await db.$executeRawUnsafe('SELECT pg_stat_force_next_flush()');
  const read = async () => {
    const { rows } = await admin.query<{ relname: string; seq_scan: string; idx_tup_fetch: string | null }>(
      `SELECT relname, seq_scan, idx_tup_fetch FROM pg_stat_user_tables WHERE schemaname = 'webhooks'`,
    );
    return Object.fromEntries(rows.map((r) => [r.relname, { seqScans: Number(r.seq_scan), fetchedByIndex: Number(r.idx_tup_fetch ?? 0) }]));
  };
  // Two reads alike: nothing was still on its way.
  let last = await read();
  await eventually(async () => {
    const now = await read();
    const same = JSON.stringify(now) === JSON.stringify(last);
    last = now;
    expect(same).toBe(true);
  });
  return last;
}

const box = SecretBox.fromEnv(process.env.SECRETS_KEY);

/**
 * `n` deliveries due at `dueAt`, made as production makes them: a console endpoint of a new
 * merchant, `n` events recorded in one transaction, dispatched at `dueAt`. Their ids.
 */
async function backlog(n: number, dueAt: Date): Promise<string[]> {
  const owner = { merchantId: randomUUID(), isTest: true };
  await createEndpoint(db, box, owner, { url: 'https://merchant.example/hook', events: ['invoice.paid'] }, dueAt);
  const events = await db.$transaction(async (tx) => {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) ids.push(await recordEvent(tx, { source: 'invoicing', owner, type: 'invoice.paid', object: { invoice: { id: `inv-${i}`, amount: 100.5 } }, at: dueAt.getTime() }));
    return ids;
  });
  expect(await dispatchEvents(db, { limit: n, now: dueAt, merchantsWithUrl: async () => ({ live: [], test: [] }) })).toEqual({ events: n, deliveries: n, leased: [] });
  const deliveries = await Promise.all(events.map((e) => deliveriesOfEvent(db, e)));
  return deliveries.flat().map((d) => d.id);
}

test('a claim planned on empty tables reaches every row after its first scan by key', async () => {
  const workerId = randomUUID();
  await heartbeat(db, workerId);
  const claim = () => claimDue(db, { workerId, now: new Date(), limit: LIMIT, perEndpoint: LIMIT, skipEndpoints: [] });
  expect(await claim()).toEqual([]);

  await backlog(DELIVERIES, new Date(Date.now() - 1000));

  const before = await counters();
  const claimed = await claim();
  const after = await counters();

  expect(claimed).toHaveLength(LIMIT);
  expect(new Set(claimed.map((d) => d.id)).size).toBe(LIMIT);
  const delta = (table: string) => ({
    seqScans: after[table]!.seqScans - before[table]!.seqScans,
    fetchedByIndex: after[table]!.fetchedByIndex - before[table]!.fetchedByIndex,
  });
  // No whole table read for a claim of 400.
  expect(delta('deliveries').seqScans).toBe(0);
  expect(delta('events').seqScans).toBe(0);
  // The first scan reads at most 4 x LIMIT due rows; then a lookup to lock each chosen row, one
  // to update it, one for its event: about 8 x LIMIT fetches in all, where a walk of the due
  // index per chosen row would be hundreds of thousands.
  expect(delta('deliveries').fetchedByIndex).toBeLessThanOrEqual(8 * LIMIT);
  expect(delta('events').fetchedByIndex).toBeLessThanOrEqual(LIMIT);
});

test('a delivery another worker is claiming is passed over for the next one, up to the limit', async () => {
  // The oldest due deliveries of the database: an hour older than any other.
  const hourAgo = Date.now() - 3_600_000;
  const [[locked], [second], [third]] = [await backlog(1, new Date(hourAgo)), await backlog(1, new Date(hourAgo + 1)), await backlog(1, new Date(hourAgo + 2))];
  const other = new pg.Client({ connectionString: url });
  await other.connect();
  try {
    await other.query('BEGIN');
    await other.query('SELECT id FROM webhooks.deliveries WHERE id = $1 FOR UPDATE', [locked]);
    const workerId = randomUUID();
    await heartbeat(db, workerId);
    const claimed = await claimDue(db, { workerId, now: new Date(), limit: 2, perEndpoint: 10, skipEndpoints: [] });
    expect(claimed.map((d) => d.id)).toEqual([second, third]);
  } finally {
    await other.query('ROLLBACK');
    await other.end();
  }
});
