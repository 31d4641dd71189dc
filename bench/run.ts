/**
 * `pnpm bench`: throughput of POST /api/v1/withdrawals on the real service.
 *
 * The crypto service runs as its own process (as in production) on a bench database; the
 * load generator signs every request like a merchant's client. Two shapes are measured:
 * - one merchant, one currency: every withdrawal takes the same balance lock (worst case);
 * - 20 merchants: the locks spread, as across a merchant base.
 */
import autocannon from 'autocannon';
import { signedHeaders } from '@pay/auth';
import { deploy, dropDatabase, parseDatabaseUrl } from '@pay/migrate';
import { spawnService, eventually, type RunningService } from '@pay/testing';

const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgresql://root@127.0.0.1:5432/payments_bench';
const DURATION_S = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const TRON_RECIPIENT = 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7';

const env = (extra: Record<string, string>) => ({
  DATABASE_URL,
  REDIS_URL: process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/14',
  SECRETS_KEY: 'be'.repeat(32),
  LOG_LEVEL: 'info', // request logs on, as in production
  NODE_ENV: 'production',
  SANDBOX_BLOCK_MS: '5',
  TRACKER_INTERVAL_MS: '20',
  WITHDRAWAL_DAILY_LIMIT: '999999999',
  RATE_LIMIT_PER_SECOND: '100000', // measure the service, not the limiter
  RATE_LIMIT_ANONYMOUS_PER_MINUTE: '100000', // 20 registrations per run; back-to-back runs must not hit it
  QUEUE_PREFIX: `bench-${Date.now()}`,
  ...extra,
});

interface Merchant {
  apiKey: string;
  hmacSecret: string;
}

async function json(url: string, init: RequestInit & { body?: string } = {}) {
  const res = await fetch(url, { ...init, headers: { 'Content-Type': 'application/json', ...(init.headers ?? {}) } });
  const body = (await res.json()) as any;
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${url}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

/** A test-mode merchant with a large available USDT_TRC20 balance, funded through the sandbox. */
async function fundedMerchant(base: string): Promise<Merchant> {
  const reg = await json(`${base}/api/v1/merchants/register`, {
    method: 'POST',
    body: JSON.stringify({ companyName: 'Bench', email: `bench-${crypto.randomUUID()}@example.test`, address: 'x' }),
  });
  const live = { apiKey: reg.data.apiKey.apiKey, hmacSecret: reg.data.apiKey.hmacSecret };
  const test = await json(`${base}/api/v1/api-keys`, {
    method: 'POST',
    headers: { 'X-Api-Key': live.apiKey },
    body: JSON.stringify({ name: 'bench', isTestKey: true }),
  });
  const m = { apiKey: test.data.apiKey as string, hmacSecret: live.hmacSecret };
  const h = { 'X-Api-Key': m.apiKey };
  const inv = await json(`${base}/api/v1/invoices`, { method: 'POST', headers: h, body: JSON.stringify({ amount: 900000000, currency: 'USDT_TRC20' }) });
  const t = await json(`${base}/api/v1/sandbox/transactions`, { method: 'POST', headers: h, body: JSON.stringify({ invoiceId: inv.data.id, amount: 900000000 }) });
  await eventually(async () => {
    const got = await json(`${base}/api/v1/transactions/${t.data.id}`, { headers: h });
    if (got.data.status !== 'Confirmed') throw new Error('not yet confirmed');
  }, 30_000, 50);
  return m;
}

async function load(base: string, merchants: Merchant[], title: string) {
  let n = 0;
  const result = await autocannon({
    url: base,
    connections: CONNECTIONS,
    duration: DURATION_S,
    requests: [
      {
        method: 'POST',
        path: '/api/v1/withdrawals',
        setupRequest: (req) => {
          const i = n++;
          const m = merchants[i % merchants.length]!;
          // A distinct amount per request gives each a distinct signature (replays are refused).
          // Written as decimal text first: float arithmetic (1 + i / 1e6) yields amounts such
          // as 1.0035860000000001, which the API rightly refuses (more than 6 decimals).
          const amount = Number(`${1 + Math.floor(i / 1e6)}.${String(i % 1e6).padStart(6, '0')}`);
          const body = JSON.stringify({ toAddress: TRON_RECIPIENT, amount, currency: 'USDT_TRC20' });
          const headers = signedHeaders('crypto', m.hmacSecret, { method: 'POST', path: '/api/v1/withdrawals', body });
          return { ...req, body, headers: { ...headers, 'X-Api-Key': m.apiKey, 'Content-Type': 'application/json' } };
        },
      },
    ],
  });
  const non2xx = result.non2xx + result.errors;
  const line =
    `${title}: ${result.requests.average.toFixed(0)} req/s mean over ${DURATION_S} s, ${result.requests.total} requests, ` +
    `latency p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, non-2xx ${non2xx}`;
  console.log(line);
  return { title, rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, total: result.requests.total, non2xx };
}

async function main() {
  // A fresh database every run: rows left by earlier runs (tens of thousands of withdrawals
  // and never-relayed outbox rows per run) would make each figure slower than the last.
  const fields = parseDatabaseUrl(DATABASE_URL);
  await dropDatabase(fields, fields.database);
  await deploy({ databaseUrl: DATABASE_URL, quiet: true });
  let svc: RunningService | null = null;
  try {
    // Funding needs the chain tracker; the measured process runs the API alone, as an
    // API-only deployment would (RUN_WORKERS=false keeps the worker's load out of the figure).
    svc = await spawnService('crypto', env({ RUN_WORKERS: 'true' }));
    const merchants: Merchant[] = [];
    for (let i = 0; i < 20; i++) merchants.push(await fundedMerchant(svc.url));
    await svc.stop();
    svc = await spawnService('crypto', env({ RUN_WORKERS: 'false' }), 20_000, process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean));
    console.log(`POST /api/v1/withdrawals, ${CONNECTIONS} connections, crypto service in its own process (2-core machine)`);
    const one = await load(svc.url, merchants.slice(0, 1), 'one merchant, one balance');
    const many = await load(svc.url, merchants, '20 merchants');
    if (one.non2xx + many.non2xx > 0) {
      console.error(svc.logs().slice(-2000));
      throw new Error('some withdrawals were refused; the figures above are not valid');
    }
  } finally {
    await svc?.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
