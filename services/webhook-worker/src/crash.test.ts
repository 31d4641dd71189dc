import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { createAccountsDb, registerMerchant } from '@pay/accounts';
import { SecretBox } from '@pay/auth';
import { deploy } from '@pay/migrate';
import { createEndpoint, createWebhooksDb, recordEvent } from '@pay/webhooks';
import { eventually, spawnService, startReceiver, startThrowawayPostgres, startThrowawayRedis, type RunningService } from '@pay/testing';

const EVENTS = 1000;

/**
 * At least once across crashes (issue 9), with a Postgres and a Redis of its own: 1,000
 * deliveries pending; the worker is killed with SIGKILL mid-flight; Redis is flushed and
 * restarted and Postgres restarted, both while nothing runs and again under a running
 * worker. Every delivery must arrive, and duplicates are counted (artefacts/crash-test.json).
 */
it('loses no delivery when the worker is killed -9 and Redis and Postgres restart', async () => {
  const pgServer = await startThrowawayPostgres('crash');
  const redis = await startThrowawayRedis();
  const receiver = await startReceiver((_r, res) => setTimeout(() => res.writeHead(200).end('ok'), 15));
  const workers: RunningService[] = [];
  try {
    await deploy({ databaseUrl: pgServer.url, quiet: true });
    const secrets = SecretBox.fromEnv(process.env.SECRETS_KEY);
    const accounts = createAccountsDb(pgServer.url, 2);
    const db = createWebhooksDb(pgServer.url, 2);
    const m = await registerMerchant(accounts, secrets, { companyName: 'Crash Ltd', email: 'crash@example.test', address: '1 Main St' });
    const owner = { merchantId: m.merchant.id, isTest: true };
    await createEndpoint(db, secrets, owner, { url: `${receiver.url}/hook`, events: ['invoice.paid'] }, new Date());
    // One transaction for the 1,000 events; a busy machine needs more than Prisma's default 5 s.
    await db.$transaction(
      async (tx) => {
        for (let i = 0; i < EVENTS; i++) await recordEvent(tx, { source: 'invoicing', owner, type: 'invoice.paid', object: { invoice: { n: i } }, at: Date.now() });
      },
      { timeout: 60_000 },
    );
    await Promise.all([accounts.$disconnect(), db.$disconnect()]);

    const env = {
      DATABASE_URL: pgServer.url,
      REDIS_URL: redis.url,
      ALLOW_PRIVATE_WEBHOOK_URLS: 'true',
      WEBHOOK_ENDPOINT_CONCURRENCY: '4',
      WEBHOOK_POLL_INTERVAL_MS: '50',
      WEBHOOK_WORKER_TTL_MS: '1500',
    };
    const startWorker = async () => {
      const w = await spawnService('webhook-worker', env);
      workers.push(w);
      return w;
    };
    const received = () => receiver.received.length;

    const first = await startWorker();
    await eventually(() => expect(received()).toBeGreaterThanOrEqual(150), 60_000);
    first.child.kill('SIGKILL'); // mid-send: requests in flight, attempts not yet recorded
    await redis.flushAndRestart();
    pgServer.restart();

    const second = await startWorker();
    await eventually(() => expect(received()).toBeGreaterThanOrEqual(450), 60_000);
    await redis.flushAndRestart();
    await eventually(() => expect(received()).toBeGreaterThanOrEqual(600), 60_000);
    pgServer.restart();

    await eventually(async () => {
      expect(new Set(receiver.received.map((r) => r.headers['x-svc-delivery'])).size).toBe(EVENTS);
    }, 90_000, 100);
    await eventually(async () => {
      const c = new pg.Client({ connectionString: pgServer.url });
      await c.connect();
      try {
        const { rows } = await c.query(`SELECT status, count(*)::int AS n FROM webhooks.deliveries GROUP BY status`);
        expect(rows).toEqual([{ status: 'succeeded', n: EVENTS }]);
      } finally {
        await c.end();
      }
    }, 30_000, 100);

    expect(await second.stop()).toBe(0);
    const ids = receiver.received.map((r) => r.headers['x-svc-delivery']);
    const duplicates = ids.length - new Set(ids).size;
    const dir = join(__dirname, '..', '..', '..', 'artefacts');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'crash-test.json'), JSON.stringify({ deliveries: EVENTS, requestsReceived: ids.length, duplicates }, null, 2));
    // Duplicates are the requests in flight at the kill and at the restarts; bounded by what was in flight.
    expect(duplicates).toBeLessThan(200);
  } finally {
    // Each worker's log is kept beside the counts, to explain a failure after the fact.
    const dir = join(__dirname, '..', '..', '..', 'artefacts');
    mkdirSync(dir, { recursive: true });
    workers.forEach((w, i) => writeFileSync(join(dir, `crash-test-worker-${i + 1}.log`), w.logs()));
    for (const w of workers) if (w.child.exitCode === null) w.child.kill('SIGKILL');
    await receiver.close();
    await redis.stop();
    pgServer.stop();
  }
}, 300_000);
