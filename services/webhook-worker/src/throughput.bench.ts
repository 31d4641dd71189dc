/**
 * Webhook delivery throughput and latency on this machine (issue 9's figures, until the bench
 * framework takes them over): `pnpm --filter @pay/webhook-worker bench`.
 *
 * The webhook worker runs as its own process, as in production, on a database of its own;
 * the receiver is a plain Node HTTP server on loopback answering 200 at once. Measured:
 * 1. drain: EVENTS events recorded up front, time until every delivery has succeeded;
 * 2. latency: events recorded at RATE per second, p50/p99 from event to the end of its first attempt;
 * 3. a bare BullMQ no-op consumer (concurrency 50) over the same number of jobs, for scale.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { createAccountsDb, registerMerchant } from '@pay/accounts';
import { SecretBox } from '@pay/auth';
import { deploy, dropDatabase, parseDatabaseUrl } from '@pay/migrate';
import { spawnService } from '@pay/testing';
import { createEndpoint, createWebhooksDb, recordEvent } from '@pay/webhooks';

const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgresql://root@127.0.0.1:5432/payments_bench_wh';
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/13';
const EVENTS = Number(process.env.EVENTS ?? 20_000);
const ENDPOINTS = Number(process.env.ENDPOINTS ?? 4);
const RATE = Number(process.env.RATE ?? 500);
const LATENCY_SECONDS = Number(process.env.LATENCY_SECONDS ?? 10);
const SECRETS_KEY = 'be'.repeat(32);

async function main() {
  await dropDatabase(parseDatabaseUrl(DATABASE_URL), parseDatabaseUrl(DATABASE_URL).database).catch(() => undefined);
  await deploy({ databaseUrl: DATABASE_URL, quiet: true });
  const secrets = SecretBox.fromEnv(SECRETS_KEY);
  const accounts = createAccountsDb(DATABASE_URL, 2);
  const db = createWebhooksDb(DATABASE_URL, 4);
  const sql = new pg.Client({ connectionString: DATABASE_URL });
  await sql.connect();

  let received = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const m = await registerMerchant(accounts, secrets, { companyName: 'Bench', email: `bench-${Date.now()}@example.test`, address: 'x' });
  const owner = { merchantId: m.merchant.id, isTest: true };
  for (let i = 0; i < ENDPOINTS; i++) await createEndpoint(db, secrets, owner, { url: `${url}/hook/${i}`, events: ['invoice.paid'] }, new Date());
  const record = async (n: number) => {
    for (let done = 0; done < n; done += 1000) {
      await db.$transaction(async (tx) => {
        for (let i = 0; i < Math.min(1000, n - done); i++) {
          await recordEvent(tx, { source: 'invoicing', owner, type: 'invoice.paid', object: { invoice: { id: `${done + i}`, amount: 100.5 } }, at: Date.now() });
        }
      });
    }
  };
  const count = async (where: string) => Number((await sql.query(`SELECT count(*)::int AS n FROM webhooks.deliveries WHERE ${where}`)).rows[0].n);

  // 1. Drain a backlog.
  await record(EVENTS);
  const deliveries = EVENTS * ENDPOINTS;
  const worker = await spawnService('webhook-worker', {
    DATABASE_URL,
    REDIS_URL,
    SECRETS_KEY,
    ALLOW_PRIVATE_WEBHOOK_URLS: 'true',
    NODE_ENV: 'production',
    LOG_LEVEL: 'info',
    QUEUE_PREFIX: `bench-${Date.now()}`,
    ...(process.env.WORKER_ENV ? JSON.parse(process.env.WORKER_ENV) : {}),
  });
  const t0 = performance.now();
  while ((await count(`status = 'succeeded'`)) < deliveries) await new Promise((r) => setTimeout(r, 50));
  const drainS = (performance.now() - t0) / 1000;
  console.log(`drain: ${deliveries} deliveries (${EVENTS} events x ${ENDPOINTS} endpoints) in ${drainS.toFixed(2)} s = ${Math.round(deliveries / drainS)} deliveries/s (receiver saw ${received})`);

  // 2. Latency at a steady rate.
  const since = new Date();
  const tick = 100;
  for (let elapsed = 0; elapsed < LATENCY_SECONDS * 1000; elapsed += tick) {
    const started = Date.now();
    await record(Math.round((RATE * tick) / 1000));
    await new Promise((r) => setTimeout(r, Math.max(0, tick - (Date.now() - started))));
  }
  while ((await count(`status <> 'succeeded'`)) > 0) await new Promise((r) => setTimeout(r, 50));
  const { rows } = await sql.query(
    `SELECT percentile_cont(ARRAY[0.5, 0.99]) WITHIN GROUP (ORDER BY extract(epoch FROM (a.attempted_at - e.created_at)) * 1000 + a.duration_ms) AS p
       FROM webhooks.attempts a JOIN webhooks.deliveries d ON d.id = a.delivery_id JOIN webhooks.events e ON e.id = d.event_id
      WHERE e.created_at >= $1`,
    [since],
  );
  const [p50, p99] = rows[0].p as number[];
  console.log(`latency at ${RATE} events/s x ${ENDPOINTS} endpoints: event to end of first attempt p50 ${p50!.toFixed(0)} ms, p99 ${p99!.toFixed(0)} ms`);
  await worker.stop();

  // 3. Bare BullMQ, same machine, same Redis.
  const connection = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  const prefix = `bench-bare-${Date.now()}`;
  const queue = new Queue('bare', { connection, prefix });
  for (let i = 0; i < deliveries; i += 1000) {
    await queue.addBulk(Array.from({ length: Math.min(1000, deliveries - i) }, (_, j) => ({ name: 'x', data: { i: i + j }, opts: { removeOnComplete: true } })));
  }
  let done = 0;
  const b0 = performance.now();
  const bare = new Worker('bare', async () => undefined, { connection, prefix, concurrency: 50 });
  await new Promise<void>((resolve) => bare.on('completed', () => ++done === deliveries && resolve()));
  const bareS = (performance.now() - b0) / 1000;
  console.log(`bare BullMQ no-op consumer: ${deliveries} jobs in ${bareS.toFixed(2)} s = ${Math.round(deliveries / bareS)} jobs/s`);
  console.log(`delivery worker / bare consumer: ${((deliveries / drainS / (deliveries / bareS)) * 100).toFixed(0)}%`);
  await bare.close();
  await queue.obliterate({ force: true });
  await queue.close();
  connection.disconnect();

  await sql.end();
  await Promise.all([accounts.$disconnect(), db.$disconnect()]);
  server.close();
  await dropDatabase(parseDatabaseUrl(DATABASE_URL), parseDatabaseUrl(DATABASE_URL).database).catch(() => undefined);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
