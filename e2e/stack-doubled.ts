import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { deploy } from '@pay/migrate';
import {
  apiClient,
  eventually,
  expectStatus,
  logLevelOf,
  registerCryptoMerchant,
  spawnService,
  startPgBouncer,
  startReceiver,
  startRedisCluster,
  startTestSmtp,
  startThrowawayPostgres,
  startThrowawayRedis,
  type ApiClient,
  type PgBouncer,
  type RegisteredMerchant,
  type RunningService,
  consoleWebhook,
  untilReady,
} from '@pay/testing';
import { buildServiceProcess } from '@pay/build';
import { outboxCountsByQueue, unpublishedBacklog } from '@pay/queue/test';
import { createWebhooksDb, queueDepth, type Queries } from '@pay/webhooks';
import { deliveriesPerEndpoint, deliveryIds, eventsPerSubject, repeatedAttempts, succeededDeliveryTotals, unsucceededDeliveries } from '@pay/webhooks/test';
import { invoiceStatusCountsIn, openWithdrawalsIn, postingsByKindIn, transactionCountIn, withdrawalStatusCountsIn } from '@pay/crypto/test';
import {
  batchesCreatedIn,
  batchInvoiceCountsIn,
  customerTotalsIn,
  emailOutcomesIn,
  expireNowIn,
  invoiceStatusesIn,
  pendingInvoicesIn,
  refundStatusCountsIn,
  unfinishedBatchWorkIn,
} from '@pay/invoicing/test';

/**
 * The whole stack doubled (issue 12): two processes of each service, compiled as production
 * runs them, on one Postgres, one Redis and one queue prefix, all with their background work
 * on. A workload spread over both processes of each API, with requests that race each other
 * on purpose (the same invoice paid, cancelled or refunded on both replicas at once); then
 * every effect must have happened exactly once.
 *
 * One workload and one set of checks, run by each variant's test file (issue 33) on the
 * deployments the README describes:
 * - `direct` (stack-doubled.test.ts): the services on Postgres and one Redis server;
 * - `pgbouncer` (stack-doubled.pgbouncer.test.ts): the services reach Postgres through PgBouncer
 *   in transaction pooling (`startPgBouncer`: DATABASE_URL their schema's entry,
 *   DATABASE_DIRECT_URL the server for LISTEN and migrations, DATABASE_POOLING=transaction);
 * - `cluster` (stack-doubled.cluster.test.ts): Redis is a Redis Cluster of three masters with a
 *   replica each (`startRedisCluster`: REDIS_CLUSTER_NODES, a hash-tagged QUEUE_PREFIX).
 * Counts land in artefacts/stack-doubled[.<variant>].json, each process's log beside them.
 */
export type StackVariant = 'direct' | 'pgbouncer' | 'cluster';

const ARTEFACTS = join(__dirname, '..', 'artefacts');

/** The workload. Every invoicing and crypto request alternates between the two replicas. */
const N = {
  /** v1 invoices whose `expiresAt` (the API takes any future time) falls a few seconds after creation. */
  expiringV1: 24,
  /** v2 invoices (`expiresInHours` is 0.25 at least) moved past expiry in the database. */
  expiringV2: 8,
  /** v1 invoices paid right around their `expiresAt`: paid or expired, never both. */
  payVsExpiry: 6,
  /** v2 invoices paid on both replicas at once: one payment each. */
  paid: 24,
  /** Customers the paid invoices share (first payments of one new customer race). */
  customers: 4,
  /** Paid invoices refunded 60 of 100 on both replicas at once: one refund each. */
  racedRefunds: 10,
  /** Paid invoices refunded 25 once. */
  singleRefunds: 6,
  /** v2 invoices cancelled on both replicas at once. */
  cancelled: 5,
  /** CSV batches, one per replica. */
  batches: 2,
  /** Valid rows per batch, each with an e-mail (2 bad rows come on top). */
  batchRows: 30,
  /** Crypto invoices paid by a sandbox transfer. */
  cryptoInvoices: 16,
  /** Withdrawals that complete, and ones to the zero address that fail on chain. */
  withdrawals: 8,
  failedWithdrawals: 2,
};
const TRON_ADDRESS = 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7';
const TRON_ZERO = 'T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb';
const INVOICING_EVENTS = ['invoice.paid', 'invoice.expired', 'invoice.cancelled', 'invoice.refunded'];
/** The drained replica keeps serving this long after SIGTERM while its /readyz says 503. */
const DRAIN_MS = 5000;
/** Clients send a request again after a 503, as the README asks (a Redis stall on a loaded machine). */
const RETRY_UNAVAILABLE = 5;

type Row = Record<string, any>;
/** SQL text on the stack's Postgres (the services' test helpers take it as their `SqlQuery`). */
type Query = <T extends Row = Row>(sql: string, params?: unknown[]) => Promise<T[]>;
/** The body key whose `id` an event is about, the first the body has: a refund's event is about the refund, not its invoice. */
const SUBJECT_KEYS = ['refund', 'withdrawal', 'transaction', 'invoice'];

/** Runs `fn` over `items`, at most `limit` at a time; `i` picks the replica. */
async function each<T>(items: T[], limit: number, fn: (item: T, i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        await fn(items[i]!, i);
      }
    }),
  );
}
const range = (n: number) => Array.from({ length: n }, (_, i) => i);
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Replica `i % 2` of a pair. */
const on = <T>(pair: T[], i: number): T => pair[i % 2]!;

/** The same request on both replicas at once: exactly one may succeed, the other is refused. */
async function onBoth(pair: ApiClient[], send: (c: ApiClient) => Promise<{ status: number }>, ok: number): Promise<void> {
  const answers = await Promise.all(pair.map(send));
  expect(answers.map((a) => a.status).sort()).toEqual([ok, 422].sort());
}

/**
 * Postgres or Redis not answering in time (a connection not opened within the pool's 5 s, a
 * transaction not started within its wait): what a starved machine does to any process. The
 * services rightly log them as errors; here they are counted in the artefact, not failed on.
 */
const STARVED = /Connection terminated due to connection timeout|Unable to start a transaction in the given time|timeout exceeded when trying to connect|Command timed out/;

/** A log line's request id, when it has one. */
function requestIdOf(line: string): string | null {
  try {
    return (JSON.parse(line) as { req?: { id?: string } }).req?.id ?? null;
  } catch {
    return null;
  }
}

/**
 * A process's error lines that are starvation: a STARVED timeout itself, or a request's 503
 * whose cause, logged under the same request id, was one (a signed request whose replay claim
 * timed out on Redis: the client sends it again, as the README asks). Any other 503 is an error.
 */
function starvation(lines: string[]): (line: string) => boolean {
  const starvedRequests = starvedRequestIds(lines);
  return (line) => STARVED.test(line) || (/"statusCode":503\b/.test(line) && starvedRequests.has(requestIdOf(line)!));
}

/** The ids of the requests a process logged a STARVED timeout for. */
function starvedRequestIds(lines: string[]): Set<string> {
  return new Set(lines.filter((l) => STARVED.test(l)).map(requestIdOf).filter((id) => id !== null));
}

/** A log line in short: its level, message and error message, or a request's method, path, status and error code. */
function summary(line: string): string {
  try {
    const l = JSON.parse(line) as { level: string; msg: string; err?: { message?: string }; req?: { method?: string; url?: string }; res?: { statusCode?: number }; errorCode?: string };
    const request = l.req?.method && l.res ? `${l.req.method} ${l.req.url} ${l.res.statusCode}${l.errorCode ? ` ${l.errorCode}` : ''}` : null;
    const detail = [request, l.err?.message].filter(Boolean).join('; ');
    return `${l.level}: ${l.msg}${detail ? ` (${detail})` : ''}`;
  } catch {
    return line.slice(0, 300);
  }
}

/** Client logins PgBouncer logged to each service's database entry. */
function loginsPerService(bouncer: PgBouncer): Record<string, number> {
  const lines = bouncer.logs().split('\n');
  return Object.fromEntries(
    ['invoicing', 'crypto', 'webhook-worker'].map((service) => {
      const entry = new URL(bouncer.envFor(service).DATABASE_URL!).pathname.slice(1);
      return [service, lines.filter((l) => l.includes(`login attempt: db=${entry} `)).length];
    }),
  );
}

/** Each compiled service bundle, built once into a temp folder. */
async function buildBundles(dir: string): Promise<Record<string, string>> {
  const names = ['invoicing', 'crypto', 'webhook-worker'];
  const built = await Promise.all(names.map((n) => buildServiceProcess(n, join(dir, n))));
  return Object.fromEntries(names.map((n, i) => [n, built[i]!.outFile]));
}


/**
 * Sends requests to whichever replicas say they are ready, as a load balancer does: each
 * replica's /readyz is probed every 50 ms, and a replica answering anything but 200 gets no
 * new requests until it is ready again.
 */
function balancer(urls: string[]) {
  const ready = new Set(urls);
  let stopped = false;
  const probes = urls.map(async (url) => {
    while (!stopped) {
      try {
        const res = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(1000) });
        if (res.status === 200) ready.add(url);
        else ready.delete(url);
      } catch {
        ready.delete(url);
      }
      await pause(50);
    }
  });
  let turn = 0;
  return {
    pick(): string | null {
      const live = urls.filter((u) => ready.has(u));
      return live.length === 0 ? null : live[turn++ % live.length]!;
    },
    async stop() {
      stopped = true;
      await Promise.all(probes);
    },
  };
}

/** The merchant's clients of both replicas of each API. */
function clientsOf(m: RegisteredMerchant, invoicingUrls: string[], cryptoUrls: string[]) {
  const retryUnavailable = RETRY_UNAVAILABLE;
  return {
    v2: invoicingUrls.map((u) => apiClient(u, m, 'v2', { retryUnavailable })),
    v1: invoicingUrls.map((u) => apiClient(u, m, 'v2', { retryUnavailable })),
    crypto: cryptoUrls.map((u) => apiClient(u, m, 'crypto', { retryUnavailable })),
  };
}
type Clients = ReturnType<typeof clientsOf>;

/**
 * Invoices that fall due: v1 ones a few seconds ahead, v2 ones moved past expiry, and v1 ones
 * paid from 0.6 s before to 0.15 s after their `expiresAt` (a request on a loaded machine can
 * take that long). Resolves once the payments around expiry have their answers.
 */
async function dueInvoices({ v1, v2 }: Clients, q: Query) {
  const expiring: string[] = [];
  await each(range(N.expiringV1), 4, async (i) => {
    const expiresAt = new Date(Date.now() + 4000).toISOString();
    expiring.push(expectStatus(await on(v1, i).keyed('POST', '/api/v1/invoices', { amount: 10 + i, currency: 'RUB', expiresAt }), 201, 'v1 create').id);
  });
  await each(range(N.expiringV2), 4, async (i) => {
    expiring.push(expectStatus(await on(v2, i).signed('POST', '/api/v2/invoices', { amount: 20 + i, expiresInHours: 0.25 }), 201, 'v2 create').invoice.id);
  });
  // v2 cannot ask for less than 15 minutes: these are moved past expiry as time would.
  await expireNowIn(q, expiring, 'v2');
  // All created at once, 6 s ahead of their common expiry: one after the other, on a loaded
  // machine, the sixth once came after a 3 s deadline (400, expiresAt must be in the future).
  // The payments wait for the deadline in the background, so a later one costs no time.
  const deadline = Date.now() + 6000;
  const racing = await Promise.all(
    range(N.payVsExpiry).map(async (i) => expectStatus(await on(v1, i).keyed('POST', '/api/v1/invoices', { amount: 50 + i, currency: 'RUB', expiresAt: new Date(deadline).toISOString() }), 201, 'v1 create').id as string),
  );
  const paying = racing.map(async (id, i) => {
    await pause(Math.max(0, deadline - Date.now() + (i - 4) * 150));
    return [id, (await on(v1, i).keyed('POST', `/api/v1/sandbox/invoices/${id}/pay`, {})).status] as const;
  });
  return { expiring, racing, payVsExpiry: Promise.all(paying).then((answers) => new Map(answers)) };
}

/** Payments, refunds and cancellations, each raced on both replicas. Returns the paid invoices. */
async function paidRefundedCancelled({ v2 }: Clients) {
  const paid: { id: string; email: string }[] = [];
  await each(range(N.paid), 4, async (i) => {
    const email = `customer-${i % N.customers}@example.ru`;
    const inv = expectStatus(await on(v2, i).signed('POST', '/api/v2/invoices', { amount: 100, customerEmail: email }), 201, 'v2 create').invoice;
    await onBoth(v2, (c) => c.signed('POST', `/api/v2/sandbox/invoices/${inv.id}/pay`, { payerBank: 'T-Bank' }), 200);
    paid.push({ id: inv.id, email });
  });
  await each(paid.slice(0, N.racedRefunds), 4, async ({ id }) => {
    await onBoth(v2, (c) => c.signed('POST', `/api/v2/invoices/${id}/refunds`, { amount: 60 }), 201);
  });
  await each(paid.slice(N.racedRefunds, N.racedRefunds + N.singleRefunds), 4, async ({ id }, i) => {
    expectStatus(await on(v2, i).signed('POST', `/api/v2/invoices/${id}/refunds`, { amount: 25 }), 201, 'refund');
  });
  await each(range(N.cancelled), 4, async (i) => {
    const inv = expectStatus(await on(v2, i).signed('POST', '/api/v2/invoices', { amount: 30 + i }), 201, 'v2 create').invoice;
    await onBoth(v2, (c) => c.signed('POST', `/api/v2/invoices/${inv.id}/cancel`), 200);
  });
  return paid;
}

/** CSV batches over BATCH_INLINE_ROWS (the queue worker writes them) with e-mailed links. */
async function batches({ v1 }: Clients): Promise<string[]> {
  const ids: string[] = [];
  for (const b of range(N.batches)) {
    const rows = range(N.batchRows).map((i) => `${100 + i},RUB,Row ${i},batch${b}-row${i}@example.test,B${b}-${i}`);
    const csv = ['amount,currency,description,email,externalId', ...rows, 'zero,RUB,bad,x@example.test,', '5,XYZ,bad,y@example.test,'].join('\n');
    const form = new FormData();
    form.append('file', new Blob([csv], { type: 'text/csv' }), `batch-${b}.csv`);
    form.append('sendEmails', 'true');
    const res = expectStatus(await on(v1, b).keyed('POST', '/api/v1/batch/invoices', form), 201, 'batch');
    expect(res).toMatchObject({ total: N.batchRows + 2, created: N.batchRows, failed: 2 });
    ids.push(res.batchId);
  }
  return ids;
}

/** Crypto invoices paid by sandbox transfers, then withdrawals from what they brought in. */
async function cryptoWork({ crypto }: Clients, q: Query): Promise<void> {
  await each(range(N.cryptoInvoices), 4, async (i) => {
    const inv = expectStatus(await on(crypto, i).keyed('POST', '/api/v1/invoices', { amount: 100, currency: 'USDT_TRC20' }), 201, 'crypto invoice').data;
    expectStatus(await on(crypto, i + 1).keyed('POST', '/api/v1/sandbox/transactions', { invoiceId: inv.id, amount: 100 }), 201, 'sandbox transfer');
  });
  await eventually(async () => {
    expect(await transactionCountIn(q, 'Confirmed')).toBe(N.cryptoInvoices);
  }, 60_000, 50);
  // Each body differs (crypto signatures are per second: equal bodies in one second would be replays).
  await each(range(N.withdrawals + N.failedWithdrawals), 4, async (i) => {
    const toAddress = i < N.withdrawals ? TRON_ADDRESS : TRON_ZERO;
    expectStatus(await on(crypto, i).signed('POST', '/api/v1/withdrawals', { toAddress, amount: 10 + i, currency: 'USDT_TRC20' }), 201, 'withdrawal');
  });
}

/** Waits until nothing is left to do: due invoices closed, batches and e-mails done, withdrawals finished, every event delivered. */
async function settled(q: Query, stackDb: Queries, due: string[], emailsReceived: () => number): Promise<void> {
  await eventually(async () => {
    // Each owner's part through its test helpers (the packages' on the stack's database as `Queries`).
    // Deliveries not yet succeeded, by status, attempts and last error: a failure names the cause.
    const [pending, batchWork, withdrawals, { undispatched }, undelivered, { pending: unpublished }] = await Promise.all([
      pendingInvoicesIn(q, due),
      unfinishedBatchWorkIn(q),
      openWithdrawalsIn(q),
      queueDepth(stackDb, new Date()),
      unsucceededDeliveries(stackDb),
      unpublishedBacklog(stackDb),
    ]);
    const s = { pending, ...batchWork, withdrawals, undispatched, undelivered, unpublished };
    expect(s).toEqual({ pending: 0, batches: 0, emails: 0, withdrawals: 0, undispatched: 0, undelivered: {}, unpublished: 0 });
    expect(emailsReceived()).toBeGreaterThanOrEqual(N.batches * N.batchRows);
  }, 60_000, 100);
}

/** Events by source and type; fails unless each has one event per subject (invoice, refund, transaction, withdrawal). */
async function eventsOnce(stackDb: Queries): Promise<{ events: Record<string, number>; crypto: number; invoicing: number }> {
  // Per source and type: its events, and its distinct subjects (a null subject is none).
  const counts: { source: string; type: string; events: number; subjects: number }[] = [];
  for (const r of await eventsPerSubject(stackDb, SUBJECT_KEYS)) {
    let c = counts.at(-1);
    if (c?.source !== r.source || c.type !== r.type) counts.push((c = { source: r.source, type: r.type, events: 0, subjects: 0 }));
    c.events += r.n;
    if (r.subject !== null) c.subjects += 1;
  }
  for (const r of counts) expect({ ...r, events: r.subjects }).toEqual(r);
  const total = (source: string) => counts.filter((r) => r.source === source).reduce((s, r) => s + r.events, 0);
  return { events: Object.fromEntries(counts.map((r) => [`${r.source}:${r.type}`, r.events])), crypto: total('crypto'), invoicing: total('invoicing') };
}

/** Customers' totals: each payment counted once, each refund taken off once. */
async function customersCountedOnce(q: Query, paid: { id: string; email: string }[]): Promise<void> {
  const refunded = new Map([...paid.slice(0, N.racedRefunds).map((p) => [p.id, 60] as const), ...paid.slice(N.racedRefunds, N.racedRefunds + N.singleRefunds).map((p) => [p.id, 25] as const)]);
  const expected = range(N.customers).map((c) => {
    const email = `customer-${c}@example.ru`;
    const mine = paid.filter((p) => p.email === email);
    const total = mine.reduce((s, p) => s + 100 - (refunded.get(p.id) ?? 0), 0);
    return { email, total_payments: mine.length, total: total.toFixed(2) };
  });
  expect(await customerTotalsIn(q)).toEqual(expected);
}

/** Batch rows written once; each e-mail sent by one job run and received once. Returns the duplicates received. */
async function batchesOnce(q: Query, batchIds: string[], recipients: string[]): Promise<number> {
  const rows = N.batches * N.batchRows;
  expect(await batchInvoiceCountsIn(q)).toEqual({ n: rows, distinct: rows });
  expect(await batchesCreatedIn(q)).toEqual([...batchIds].sort().map((id) => ({ id, created: N.batchRows })));
  expect(await emailOutcomesIn(q)).toEqual([{ status: 'sent', attempts: 1, n: rows }]);
  expect(new Set(recipients).size).toBe(rows);
  return recipients.length - new Set(recipients).size;
}

/** Each transfer confirmed once (its four postings), each withdrawal held once and finished once. Returns postings by kind. */
async function ledgerOnce(q: Query): Promise<Row[]> {
  expect(await invoiceStatusCountsIn(q)).toEqual([{ status: 'Paid', n: N.cryptoInvoices }]);
  const postings = await postingsByKindIn(q);
  const allWithdrawals = N.withdrawals + N.failedWithdrawals;
  const expected = { deposit: N.cryptoInvoices, deposit_detected: N.cryptoInvoices, deposit_settled: N.cryptoInvoices, fee: N.cryptoInvoices, withdrawal_hold: allWithdrawals, withdrawal_release: N.failedWithdrawals };
  expect(postings).toEqual(Object.entries(expected).map(([kind, n]) => ({ kind, n, subjects: n })));
  expect(await withdrawalStatusCountsIn(q)).toEqual([
    { status: 'Completed', n: N.withdrawals },
    { status: 'Failed', n: N.failedWithdrawals },
  ]);
  return postings;
}

const TITLES: Record<StackVariant, string> = {
  direct: 'the stack doubled: two processes of every service on one Postgres and Redis',
  pgbouncer: 'the stack doubled through PgBouncer: two processes of every service on one Postgres in transaction pooling, and one Redis',
  cluster: 'the stack doubled on a Redis Cluster: two processes of every service on one Postgres and a Redis Cluster of three masters',
};

/** The services' Redis: one server, or a cluster of three masters with a replica each. */
async function startRedisFor(variant: StackVariant): Promise<{ env: Record<string, string>; stop(): Promise<void> }> {
  if (variant !== 'cluster') {
    const redis = await startThrowawayRedis();
    return { env: { REDIS_URL: redis.url, QUEUE_PREFIX: 'doubled' }, stop: () => redis.stop() };
  }
  const cluster = await startRedisCluster({ queuePrefix: '{doubled}' });
  // REDIS_URL points nowhere: a connection that ignored REDIS_CLUSTER_NODES would show as an error.
  return { env: { REDIS_URL: 'redis://127.0.0.1:1', ...cluster.env }, stop: () => cluster.stop() };
}

/** Declares the doubled stack's test on `variant`'s servers: one workload, one set of checks for every variant. */
export function describeDoubledStack(variant: StackVariant): void {
  /** Artefact names: stack-doubled.json and stack-doubled-<process>.log directly, stack-doubled.<variant>… otherwise. */
  const artefact = variant === 'direct' ? 'stack-doubled' : `stack-doubled.${variant}`;
  describe(TITLES[variant], () => {
    let bundleDir: string;
    let receiptsDir: string;
    let pgServer: Awaited<ReturnType<typeof startThrowawayPostgres>>;
    let redis: Awaited<ReturnType<typeof startRedisFor>>;
    let pgbouncer: PgBouncer | undefined;
    let receiver: Awaited<ReturnType<typeof startReceiver>>;
    let smtp: Awaited<ReturnType<typeof startTestSmtp>>;
    let db: pg.Pool;
    /** The stack's database as the packages' (webhooks, queue) test helpers take it. */
    let stackDb: ReturnType<typeof createWebhooksDb>;
    const procs: Record<string, RunningService> = {};
    const q: Query = async (sql, params = []) => (await db.query(sql, params)).rows;
    /** How long each step took (artefacts/stack-doubled[.<variant>].json): this machine is shared and often loaded. */
    const phases: Record<string, number> = {};
    let last = 0;
    const phase = (name: string) => {
      phases[name] = Date.now() - last;
      last = Date.now();
    };

    beforeAll(async () => {
      last = Date.now();
      bundleDir = mkdtempSync(join(tmpdir(), 'pay-doubled-'));
      receiptsDir = mkdtempSync(join(tmpdir(), 'pay-doubled-receipts-'));
      // Six processes with up to 20 connections each, and this test's own.
      [pgServer, redis, receiver, smtp] = await Promise.all([startThrowawayPostgres(`doubled_${variant}`, { maxConnections: 200 }), startRedisFor(variant), startReceiver(), startTestSmtp()]);
      // Through PgBouncer: 20 server connections per service schema (each process's pool is 20 at most).
      if (variant === 'pgbouncer') pgbouncer = await startPgBouncer(pgServer.url, { poolSize: 20 });
      db = new pg.Pool({ connectionString: pgServer.url, max: 3 });
      stackDb = createWebhooksDb(pgServer.url, 3);
      phase('servers');
      const [bundles] = await Promise.all([buildBundles(bundleDir), deploy({ databaseUrl: pgServer.url, quiet: true })]);
      phase('build and migrate');
      /** Where a service finds Postgres: the server, or its schema's PgBouncer entry (and the server for LISTEN). */
      const database = (name: string): Record<string, string> => (pgbouncer ? pgbouncer.envFor(name) : { DATABASE_URL: pgServer.url });
      const env = {
        ...redis.env,
        ALLOW_PRIVATE_WEBHOOK_URLS: 'true',
        RUN_WORKERS: 'true',
        // Fast loops: 19 Tron confirmations take ~0.4 s; the reconcilers run twice a second, so
        // they race the work they reconcile instead of waiting 30 s. Not faster: six processes
        // polling share two cores with Postgres, Redis and whatever else the machine runs.
        SANDBOX_BLOCK_MS: '20',
        TRACKER_INTERVAL_MS: '100',
        WITHDRAWAL_POLL_MS: '100',
        OUTBOX_INTERVAL_MS: '100',
        EXPIRY_INTERVAL_MS: '200',
        RECONCILE_INTERVAL_MS: '500',
        WEBHOOK_POLL_INTERVAL_MS: '100',
        BATCH_INLINE_ROWS: '10',
        SMTP_HOST: '127.0.0.1',
        SMTP_PORT: String(smtp.port),
        RECEIPTS_DIR: receiptsDir,
      };
      const start = async (key: string, name: string, extra: Record<string, string> = {}) => {
        procs[key] = await spawnService(name, { ...env, ...database(name), ...extra }, 60_000, [], bundles[name]);
      };
      await Promise.all([
        start('invoicing-1', 'invoicing'),
        start('invoicing-2', 'invoicing', { SHUTDOWN_DRAIN_MS: String(DRAIN_MS) }),
        start('crypto-1', 'crypto'),
        start('crypto-2', 'crypto'),
        start('worker-1', 'webhook-worker'),
        start('worker-2', 'webhook-worker'),
      ]);
      phase('spawn');
      // As a balancer would: no traffic before a process says it is ready (Postgres and Redis answered).
      await untilReady(Object.values(procs));
      phase('ready');
    }, 180_000);

    afterAll(async () => {
      mkdirSync(ARTEFACTS, { recursive: true });
      for (const [key, svc] of Object.entries(procs)) {
        // The log's last 64 KiB, and every warning and error of the run whole (they may be older).
      writeFileSync(join(ARTEFACTS, `${artefact}-${key}.log`), svc.logs());
      writeFileSync(join(ARTEFACTS, `${artefact}-${key}.problems.log`), svc.problems().join('\n'));
        if (svc.child.exitCode === null && svc.child.signalCode === null) svc.child.kill('SIGKILL');
      }
      if (pgbouncer) writeFileSync(join(ARTEFACTS, `${artefact}-pgbouncer.log`), pgbouncer.logs());
      await db?.end();
      await stackDb?.$close();
      await Promise.all([receiver?.close(), smtp?.close(), redis?.stop(), pgbouncer?.stop()]);
      pgServer?.stop();
      rmSync(bundleDir, { recursive: true, force: true });
      rmSync(receiptsDir, { recursive: true, force: true });
    });

    /**
     * SIGTERM to one invoicing replica while a balancer spreads load over both: its /readyz
     * turns 503 while it still answers, the balancer moves its share to the other replica, and
     * no request fails (clients without retries here). A 503 whose replica logged a starvation
     * timeout as its cause (under its X-Request-Id) is counted apart, as in the logs' check:
     * the machine's doing, not the drain's.
     */
    async function drainUnderLoad(m: RegisteredMerchant, urls: string[]) {
      const drained = procs['invoicing-2']!;
      const lb = balancer(urls);
      const direct = urls.map((u) => apiClient(u, m, 'v2'));
      const served = new Map<string, number>();
      const failures: string[] = [];
      /** 503 answers, to be told starved or not once their replica's log is in. */
      const unavailable: { url: string; id: string | null; text: string }[] = [];
      let stopLoad = false;
      let exited = false;
      let afterExit = 0;
      const lanes = range(4).map(async (lane) => {
        for (let i = 0; !stopLoad; i++) {
          const url = lb.pick();
          if (!url) {
            await pause(10);
            continue;
          }
          try {
            const res = await direct[urls.indexOf(url)]!.signed('POST', '/api/v2/invoices', { amount: 1 + lane, description: `drain ${lane}-${i}` });
            if (res.status === 503) unavailable.push({ url, id: res.headers.get('x-request-id'), text: `${url}: 503 ${JSON.stringify(res.body)}` });
            else if (res.status !== 201) failures.push(`${url}: ${res.status} ${JSON.stringify(res.body)}`);
            else served.set(url, (served.get(url) ?? 0) + 1);
            if (exited) afterExit++;
          } catch (err) {
            failures.push(`${url}: ${(err as Error).message}`);
          }
        }
      });
      await eventually(() => expect(served.get(drained.url) ?? 0).toBeGreaterThanOrEqual(5), 20_000, 20);
      const servedBeforeTerm = served.get(drained.url)!;
      const stopping = drained.stop();
      await eventually(async () => {
        const [ready, health] = await Promise.all([fetch(`${drained.url}/readyz`), fetch(`${drained.url}/healthz`)]);
        expect([ready.status, health.status]).toEqual([503, 200]);
      }, DRAIN_MS, 20);
      const exitCode = await stopping;
      exited = true;
      await eventually(() => expect(afterExit).toBeGreaterThanOrEqual(20), 20_000, 20);
      stopLoad = true;
      await Promise.all(lanes);
      await lb.stop();
      expect(exitCode).toBe(0);
      const starvedOf = (url: string) => starvedRequestIds(Object.values(procs).find((p) => p.url === url)!.problems());
      const notStarved = () => unavailable.filter((u) => u.id === null || !starvedOf(u.url).has(u.id)).map((u) => u.text);
      // A replica's log lines may come in a moment after its answer.
      if (notStarved().length > 0) await pause(1000);
      expect([...failures, ...notStarved()]).toEqual([]);
      return { drainedServed: served.get(drained.url)!, drainedServedAfterTerm: served.get(drained.url)! - servedBeforeTerm, otherServed: served.get(urls[0]!)!, afterExit, failures: failures.length, starved503: unavailable.length, exitCode };
    }

    it('every expiry, payment, refund, posting, withdrawal, batch row, e-mail and delivery happens once; a drained replica loses no request', async () => {
      last = Date.now();
      const invoicingUrls = [procs['invoicing-1']!.url, procs['invoicing-2']!.url];
      const cryptoUrls = [procs['crypto-1']!.url, procs['crypto-2']!.url];

      // A merchant, its crypto webhookUrl, and two console webhooks (made on different replicas;
      // the second leaves out invoice.cancelled, so routing is checked too).
      const m = await registerCryptoMerchant(cryptoUrls[0]!);
      const live = apiClient(cryptoUrls[1]!, { apiKey: m.liveKey, hmacSecret: m.hmacSecret }, 'crypto');
      expectStatus(await live.signed('PUT', '/api/v1/merchants/webhook', { webhookUrl: `${receiver.url}/merchant` }), 200, 'webhookUrl');
      const endpoints = {
        all: await consoleWebhook(invoicingUrls[0]!, m.apiKey, `${receiver.url}/console-all`, INVOICING_EVENTS),
        some: await consoleWebhook(invoicingUrls[1]!, m.apiKey, `${receiver.url}/console-some`, ['invoice.paid', 'invoice.expired', 'invoice.refunded']),
      };
      const clients = clientsOf(m, invoicingUrls, cryptoUrls);

      phase('merchant and webhooks');
      const due = await dueInvoices(clients, q);
      phase('due invoices');
      const paid = await paidRefundedCancelled(clients);
      phase('payments, refunds, cancellations');
      const batchIds = await batches(clients);
      phase('batches');
      await cryptoWork(clients, q);
      const payVsExpiry = await due.payVsExpiry;
      phase('crypto requests');
      await settled(q, stackDb, [...due.expiring, ...due.racing], () => smtp.received.length);
      phase('settling');
      // Every loop and reconciler (every 500 ms at most) keeps running over the settled rows for
      // a while: a second run of anything would show in the counts below.
      await pause(1500);

      // Expiry: each due invoice expired once with one invoice.expired; one paid around its expiry is paid, not expired.
      const { events, crypto: cryptoEvents, invoicing: invoicingEvents } = await eventsOnce(stackDb);
      expect([...payVsExpiry.values()].filter((s) => s !== 200 && s !== 422)).toEqual([]);
      const racedPaid = [...payVsExpiry.values()].filter((s) => s === 200).length;
      const statuses = await invoiceStatusesIn(q, [...due.expiring, ...due.racing]);
      for (const s of statuses) expect([s.id, s.status]).toEqual([s.id, payVsExpiry.get(s.id) === 200 ? 'PAID' : 'EXPIRED']);
      const paidOrExpired = new Map<string | null, number>();
      for (const e of await eventsPerSubject(stackDb, ['invoice'], { source: 'invoicing', types: ['invoice.paid', 'invoice.expired'] })) {
        paidOrExpired.set(e.subject, (paidOrExpired.get(e.subject) ?? 0) + e.n);
      }
      expect([...paidOrExpired].filter(([, n]) => n > 1)).toEqual([]);
      expect(events['invoicing:invoice.expired']).toBe(N.expiringV1 + N.expiringV2 + N.payVsExpiry - racedPaid);
      // Payments, refunds and cancellations raced on both replicas: one each.
      expect(events['invoicing:invoice.paid']).toBe(N.paid + racedPaid);
      expect(events['invoicing:invoice.cancelled']).toBe(N.cancelled);
      const refunds = N.racedRefunds + N.singleRefunds;
      expect(await refundStatusCountsIn(q)).toEqual([{ status: 'SUCCEEDED', n: refunds }]);
      expect(events['invoicing:invoice.refunded']).toBe(refunds);
      await customersCountedOnce(q, paid);
      const recipients = smtp.received.flatMap((mail) => mail.to);
      const emailDuplicates = await batchesOnce(q, batchIds, recipients);
      expect(emailDuplicates).toBe(0);

      const postings = await ledgerOnce(q);
      expect(events['crypto:transaction.confirmed']).toBe(N.cryptoInvoices);
      expect(events['crypto:invoice.paid']).toBe(N.cryptoInvoices);
      expect(events['crypto:withdrawal.completed']).toBe(N.withdrawals);
      expect(events['crypto:withdrawal.failed']).toBe(N.failedWithdrawals);

      // Deliveries: one per (event, endpoint), each sent in one attempt and received once.
      const expectedDeliveries = cryptoEvents + 2 * invoicingEvents - N.cancelled;
      const d = await succeededDeliveryTotals(stackDb);
      const ids = receiver.received.map((r) => r.headers['x-svc-delivery'] as string);
      const deliveryDuplicates = ids.length - new Set(ids).size;
      // A delivery attempted twice is shown with its attempts and how often the receiver got it.
      const repeated = (await repeatedAttempts(stackDb)).map((r) => ({ ...r, received: ids.filter((id) => id === r.id).length }));
      expect({ ...d, repeated }).toEqual({ deliveries: expectedDeliveries, pairs: expectedDeliveries, attempts: expectedDeliveries, attempted: expectedDeliveries, repeated: [] });
      expect(new Set(ids)).toEqual(new Set(await deliveryIds(stackDb)));
      expect(deliveryDuplicates).toBe(0);
      const byPath = (path: string) => receiver.received.filter((r) => r.path === path).length;
      expect({ merchant: byPath('/merchant'), all: byPath('/console-all'), some: byPath('/console-some') }).toEqual({
        merchant: cryptoEvents,
        all: invoicingEvents,
        some: invoicingEvents - N.cancelled,
      });
      // The same split in the rows: one merchant endpoint, however many dispatchers wrote it.
      const perEndpoint = await deliveriesPerEndpoint(stackDb);
      expect(Object.fromEntries(perEndpoint.map((r) => [r.kind === 'merchant' ? 'merchant' : r.id, r.n]))).toEqual({
        merchant: cryptoEvents,
        [endpoints.all]: invoicingEvents,
        [endpoints.some]: invoicingEvents - N.cancelled,
      });

      // Outbox: every row published, once per job id.
      const outbox = await outboxCountsByQueue(stackDb);
      for (const r of outbox) expect(r).toEqual({ ...r, jobs: r.n, published: r.n });
      phase('quiet period and checks');

      const drain = await drainUnderLoad(m, invoicingUrls);
      phase('drain');

      // Every process stops cleanly, and none logged an error but starvation timeouts (counted, as are warnings).
      const exits = await Promise.all(Object.entries(procs).map(async ([key, svc]) => [key, svc.child.exitCode ?? (await svc.stop())] as const));
      expect(Object.fromEntries(exits)).toEqual(Object.fromEntries(Object.keys(procs).map((k) => [k, 0])));
      const logged = (keep: (line: string, starved: (line: string) => boolean) => boolean) =>
        Object.fromEntries(
          Object.entries(procs).map(([key, svc]) => {
            const lines = svc.problems();
            const starved = starvation(lines);
            return [key, lines.filter((l) => keep(l, starved)).map(summary)];
          }),
        );
      const errors = logged((l, starved) => logLevelOf(l) !== 40 && !starved(l));
      const timeouts = logged((l, starved) => logLevelOf(l) !== 40 && starved(l));
      const warnings = logged((l) => logLevelOf(l) === 40);
      phase('stop');
      // Through PgBouncer, each service logged in to its schema's entry (PgBouncer logs every login):
      // the work above went through it, not around it by DATABASE_DIRECT_URL.
      const pgbouncerLogins = pgbouncer && loginsPerService(pgbouncer);

      mkdirSync(ARTEFACTS, { recursive: true });
      const report = {
        variant,
        processes: Object.keys(procs).sort(),
        workload: { ...N, payVsExpiryPaid: racedPaid },
        events,
        deliveries: { expected: expectedDeliveries, rows: d.deliveries, attempts: d.attempts, requestsReceived: ids.length, duplicates: deliveryDuplicates },
        emails: { expected: N.batches * N.batchRows, received: recipients.length, duplicates: emailDuplicates },
        postings: Object.fromEntries(postings.map((p) => [p.kind, p.n])),
        outbox: Object.fromEntries(outbox.map((r) => [r.queue, r.n])),
        retriedAfter503: Object.values(clients).flat().reduce((n, c) => n + c.stats.retried, 0),
        drain,
        ...(pgbouncerLogins ? { pgbouncerLogins } : {}),
        errors,
        timeouts,
        warnings,
        phasesMs: phases,
      };
      writeFileSync(join(ARTEFACTS, `${artefact}.json`), JSON.stringify(report, null, 2));
      expect(errors).toEqual(Object.fromEntries(Object.keys(procs).map((k) => [k, []])));
      if (pgbouncerLogins) for (const [service, n] of Object.entries(pgbouncerLogins)) expect([service, n > 0]).toEqual([service, true]);
    }, 240_000);
  });
}
