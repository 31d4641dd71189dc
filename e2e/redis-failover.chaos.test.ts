import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { Queue } from 'bullmq';
import { deploy } from '@pay/migrate';
import { Cluster } from 'ioredis';
import {
  apiClient,
  ARTEFACTS,
  BUILT_START_MS,
  eventually,
  expectStatus,
  fundCryptoMerchant,
  recordChaos,
  registerCryptoMerchant,
  serverFailures,
  spawnBuiltService,
  startReceiver,
  startRedisCluster,
  startThrowawayPostgres,
  tally,
  untilAnswered,
  type ApiClient,
  type HttpAnswer,
  type RedisClusterServer,
  type RunningService,
  consoleWebhook,
  untilReady,
} from '@pay/testing';
import { unpublishedBacklog } from '@pay/queue/test';
import { createWebhooksDb, queueDepth } from '@pay/webhooks';
import { deliveryIds, eventsPerSubject, succeededDeliveryTotals, unsucceededDeliveries } from '@pay/webhooks/test';
import { invoiceStatusCountsIn, openWithdrawalListIn, openWithdrawalsIn, postingsByKindIn, withdrawalsByKeyIn } from '@pay/crypto/test';
import { customerTotalsIn, invoicesByKey, invoiceStatusesIn } from '@pay/invoicing/test';

/**
 * Issue 33: the compiled services (invoicing, crypto with its workers, the webhook worker) on a
 * Redis Cluster of three masters with a replica each (REDIS_CLUSTER_NODES, QUEUE_PREFIX `{pay}`)
 * and a Postgres of the test's own. Lanes of clients drive work through Redis: signed v2
 * creates and sandbox payments through the auth gate, crypto invoices paid by sandbox transfers,
 * withdrawals worked through BullMQ, and every event through the outbox to a webhook delivery to
 * a loopback receiver. Mid-load the master holding the queues' slot is killed with SIGKILL, its
 * replica takes over, and then the master holding the merchant's gate keys (if another one).
 * Clients send every request with an Idempotency-Key and send it again after a 503 or no answer,
 * as the README asks. A process answering /healthz 503 (a queue worker of it stuck) is restarted,
 * as the pods' liveness probe would (livenessProbe; the report lists any restart). Then: every
 * request answered has its effect once in Postgres, nothing paid or withdrawn twice, every event
 * delivered once, and no 5xx but 503.
 */

const LANES = 4;
/** Load before the first kill, and after the last failover, in ms. */
const BEFORE_MS = 4000;
const AFTER_MS = 4000;
const TRON_ADDRESS = 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7';
const SUBJECT_KEYS = ['refund', 'withdrawal', 'transaction', 'invoice'];
const INVOICING_EVENTS = ['invoice.paid', 'invoice.expired', 'invoice.cancelled', 'invoice.refunded'];
/** At most this many withdrawals (1.xxx USDT each) from the 990 funded. */
const MAX_WITHDRAWALS = 400;
/**
 * How long the work started may take to finish after the load. A job whose state change the
 * dead master took with it (acknowledged, not yet replicated) is still `active` on the promoted
 * replica under a lock nobody renews: BullMQ's stalled check moves it back after its lock
 * (30 s) and the next check (every 30 s), or fails it, and the reconciler (RECONCILE_INTERVAL_MS,
 * 30 s) adds it again: about 90 s at worst with the defaults, which this run keeps.
 */
const SETTLE_MS = 180_000;

/**
 * Kubernetes' liveness probe (infra/k8s: /healthz every 10 s, restart after 3 failures), faster:
 * a process answering /healthz 503 (a queue worker of it stuck: @pay/queue's watchProgress) 3
 * times in a row, 2 s apart, is killed and started again on its port, as its pod would be. What
 * it did is in `restarts`, with the answer that made it; `stop` ends it.
 */
function livenessProbe(procs: Record<string, RunningService>, respawn: (name: string, old: RunningService) => Promise<RunningService>) {
  const restarts: { name: string; at: number; healthz: unknown }[] = [];
  const failures: Record<string, number> = {};
  let restarting = false;
  const timer = setInterval(async () => {
    if (restarting) return;
    for (const [name, svc] of Object.entries(procs)) {
      const answer = await fetch(`${svc.url}/healthz`, { signal: AbortSignal.timeout(1500) }).then(async (r) => ({ status: r.status, body: await r.json().catch(() => null) }), () => null);
      failures[name] = answer?.status === 503 ? (failures[name] ?? 0) + 1 : 0;
      if (failures[name]! < 3) continue;
      restarting = true;
      restarts.push({ name, at: Date.now(), healthz: answer!.body });
      try {
        svc.child.kill('SIGKILL');
        procs[name] = await respawn(name, svc);
      } finally {
        failures[name] = 0;
        restarting = false;
      }
      return;
    }
  }, 2000);
  return { restarts, stop: () => clearInterval(timer) };
}

type Row = Record<string, any>;
type Query = <T extends Row = Row>(sql: string, params?: unknown[]) => Promise<T[]>;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One logical request: its final answer and every attempt it took. */
interface Op {
  kind: 'v2-create' | 'v2-pay' | 'crypto-invoice' | 'transfer' | 'withdrawal';
  key: string;
  answer: HttpAnswer;
  attempts: HttpAnswer[];
  at: number;
}


describe('a Redis Cluster master killed under load (issue 33)', () => {
  let cluster: RedisClusterServer;
  let pgServer: Awaited<ReturnType<typeof startThrowawayPostgres>>;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let db: pg.Pool;
  let stackDb: ReturnType<typeof createWebhooksDb>;
  const procs: Record<string, RunningService> = {};
  /** Every process each service ran as, restarts included, for the logs at the end. */
  const ran: [string, RunningService][] = [];
  let probe: ReturnType<typeof livenessProbe> | undefined;
  const q: Query = async (sql, params = []) => (await db.query(sql, params)).rows;
  const queueConnection = () => new Cluster(cluster.ports.map((port) => ({ host: '127.0.0.1', port })), { redisOptions: { maxRetriesPerRequest: null } });

  beforeAll(async () => {
    [cluster, pgServer, receiver] = await Promise.all([startRedisCluster({ queuePrefix: '{pay}' }), startThrowawayPostgres('redis_failover', { maxConnections: 120 }), startReceiver()]);
    db = new pg.Pool({ connectionString: pgServer.url, max: 3 });
    stackDb = createWebhooksDb(pgServer.url, 3);
    await deploy({ databaseUrl: pgServer.url, quiet: true });
    const env = {
      DATABASE_URL: pgServer.url,
      // Nothing listens there: a client that ignored REDIS_CLUSTER_NODES would fail loudly.
      REDIS_URL: 'redis://127.0.0.1:1',
      ...cluster.env,
      RUN_WORKERS: 'true',
      SANDBOX_BLOCK_MS: '20',
      TRACKER_INTERVAL_MS: '100',
      WITHDRAWAL_POLL_MS: '100',
      OUTBOX_INTERVAL_MS: '100',
      WEBHOOK_POLL_INTERVAL_MS: '100',
      WITHDRAWAL_DAILY_LIMIT: '1000000',
      WITHDRAWALS_PER_HOUR: '1000000',
      RATE_LIMIT_PER_SECOND: '100000',
    };
    const names = ['invoicing', 'crypto', 'webhook-worker'];
    const started = await Promise.all(names.map((n) => spawnBuiltService(n, env)));
    names.forEach((n, i) => {
      procs[n] = started[i]!;
      ran.push([n, started[i]!]);
    });
    await untilReady(Object.values(procs));
    // Restarted on the same port and PUBLIC_URL, so the lanes' URLs and the links handed out stay good.
    probe = livenessProbe(procs, async (name, old) => {
      const { port } = new URL(old.url);
      const svc = await spawnBuiltService(name, { ...env, PORT: port, PUBLIC_URL: old.url });
      ran.push([name, svc]);
      await untilReady([svc]);
      return svc;
    });
  }, BUILT_START_MS);

  afterAll(async () => {
    probe?.stop();
    mkdirSync(ARTEFACTS, { recursive: true });
    const seen = new Map<string, number>();
    for (const [name, svc] of ran) {
      // A restarted service's later processes: -2, -3 (the first keeps the plain name).
      const n = (seen.get(name) ?? 0) + 1;
      seen.set(name, n);
      const file = n === 1 ? `redis-failover-${name}` : `redis-failover-${name}-${n}`;
      writeFileSync(join(ARTEFACTS, `${file}.log`), svc.logs());
      // Every warning and error of the whole run but the request lines (the 503s of the
      // failover), which fill the 64 KiB tail above: what the workers said after the kills.
      writeFileSync(join(ARTEFACTS, `${file}.problems.log`), svc.problems().filter((line) => !line.includes('"msg":"request completed"')).join('\n'));
      if (svc.child.exitCode === null && svc.child.signalCode === null) svc.child.kill('SIGKILL');
    }
    await db?.end();
    await stackDb?.$close();
    await receiver?.close();
    await cluster?.stop();
    pgServer?.stop();
  });

  it('kills the queues’ master, then the gate’s, during load: every answered request has its effect once, every event is delivered once, no 5xx but 503', async () => {
    const started = Date.now();
    const invoicing = procs.invoicing!.url;
    const crypto = procs.crypto!.url;
    const m = await registerCryptoMerchant(crypto);
    const live = apiClient(crypto, { apiKey: m.liveKey, hmacSecret: m.hmacSecret }, 'crypto');
    expectStatus(await live.signed('PUT', '/api/v1/merchants/webhook', { webhookUrl: `${receiver.url}/merchant` }), 200, 'webhookUrl');
    await consoleWebhook(invoicing, m.apiKey, `${receiver.url}/console`, INVOICING_EVENTS);
    await fundCryptoMerchant(crypto, m, 'USDT_TRC20', 1000, 60_000);
    const v2: ApiClient = apiClient(invoicing, m, 'v2');
    const cr: ApiClient = apiClient(crypto, m, 'crypto');

    const ops: Op[] = [];
    let lastOpen: { id: string; status: string }[] = [];
    /** Sends until answered (503, no answer or 409 in progress are sent again, signed afresh, with the same key). */
    const run = async (kind: Op['kind'], key: string, send: () => Promise<HttpAnswer>): Promise<Op> => {
      const at = Date.now();
      const { answer, attempts } = await untilAnswered(send, 60_000);
      const op = { kind, key, answer, attempts, at };
      ops.push(op);
      return op;
    };
    const paid: { id: string; email: string }[] = [];
    let withdrawals = 0;
    let stop = false;
    const lanes = Array.from({ length: LANES }, async (_, lane) => {
      for (let i = 0; !stop; i++) {
        const tag = `${lane}-${i}`;
        // An invoice through the gate (signed v2), then its sandbox payment.
        const email = `c${lane}@example.ru`;
        const created = await run('v2-create', `v2-${tag}`, () =>
          v2.signed('POST', '/api/v2/invoices', { amount: 100, description: `v2-${tag}`, customerEmail: email }, { 'Idempotency-Key': `v2-${tag}` }),
        );
        if (created.answer.status === 201) {
          const id = created.answer.body.invoice.id as string;
          const payment = await run('v2-pay', id, () => v2.signed('POST', `/api/v2/sandbox/invoices/${id}/pay`, { payerBank: 'T-Bank' }));
          if (payment.answer.status === 200) paid.push({ id, email });
        }
        // A crypto invoice paid by a sandbox transfer: confirmations, postings and events by its workers.
        const inv = await run('crypto-invoice', `ci-${tag}`, () => cr.keyed('POST', '/api/v1/invoices', { amount: 10, currency: 'USDT_TRC20' }, { 'Idempotency-Key': `ci-${tag}` }));
        if (inv.answer.status === 201) {
          const invoiceId = inv.answer.body.data.id as string;
          await run('transfer', invoiceId, () => cr.keyed('POST', '/api/v1/sandbox/transactions', { invoiceId, amount: 10 }, { 'Idempotency-Key': `tx-${tag}` }));
        }
        // A withdrawal (BullMQ's crypto-withdrawals queue), each of its own amount so its own signature.
        if (withdrawals < MAX_WITHDRAWALS) {
          const n = withdrawals++;
          const amount = Number((1 + n / 1000).toFixed(3));
          await run('withdrawal', `w-${n}`, () => cr.signed('POST', '/api/v1/withdrawals', { toAddress: TRON_ADDRESS, amount, currency: 'USDT_TRC20' }, { 'Idempotency-Key': `w-${n}` }));
        }
      }
    });

    // The queues' slot ({pay}) and the merchant's gate keys ({merchantId}), each on some master.
    const gateKey = `{${m.merchantId}}:gate`;
    await pause(BEFORE_MS);
    const sameMaster = (await cluster.masterOf(gateKey)).port === (await cluster.masterOf(cluster.env.QUEUE_PREFIX)).port;
    const queueFailover = await cluster.killMaster({ holding: cluster.env.QUEUE_PREFIX });
    // The gate's master next, unless it was the same one (its replica, now master, has none left).
    let gateFailover: typeof queueFailover | 'the same master' = 'the same master';
    if (!sameMaster) {
      await pause(2000);
      gateFailover = await cluster.killMaster({ holding: gateKey });
    }
    await pause(AFTER_MS);
    stop = true;
    await Promise.all(lanes);
    const loadEnded = Date.now();

    // Everything the load started finishes: withdrawals done, events published and delivered.
    await eventually(async () => {
      lastOpen = await openWithdrawalListIn(q);
      const [open, { undispatched }, undelivered, { pending: unpublished }] = await Promise.all([openWithdrawalsIn(q), queueDepth(stackDb, new Date()), unsucceededDeliveries(stackDb), unpublishedBacklog(stackDb)]);
      expect({ open, undispatched, undelivered, unpublished }).toEqual({ open: 0, undispatched: 0, undelivered: {}, unpublished: 0 });
      expect(await invoiceStatusCountsIn(q)).toEqual([{ status: 'Paid', n: ops.filter((o) => o.kind === 'crypto-invoice').length + 1 }]);
    }, SETTLE_MS, 200).catch(async (err: Error) => {
      // Where each open withdrawal's job is: a job lost with the master, or one BullMQ left stuck.
      const connection = queueConnection();
      const queue = new Queue('crypto-withdrawals', { connection, prefix: cluster.env.QUEUE_PREFIX });
      try {
        const states = await Promise.all(lastOpen.slice(0, 40).map(async (w) => ({ ...w, job: await queue.getJobState(w.id).catch((e: Error) => e.message) })));
        throw new Error(`${err.message}\nopen withdrawals and their jobs: ${JSON.stringify(states)}\njob counts: ${JSON.stringify(await queue.getJobCounts())}`);
      } finally {
        await queue.close();
        connection.disconnect();
      }
    });
    await pause(1500);
    const settledMs = Date.now() - loadEnded;

    const attempts = ops.flatMap((o) => o.attempts);
    const byKind = (k: Op['kind']) => ops.filter((o) => o.kind === k);
    const finals = Object.fromEntries((['v2-create', 'v2-pay', 'crypto-invoice', 'transfer', 'withdrawal'] as const).map((k) => [k, byKind(k).reduce<Record<number, number>>((s, o) => ({ ...s, [o.answer.status]: (s[o.answer.status] ?? 0) + 1 }), {})]));
    const { duplicated: invoicesDuplicated, lost: invoicesLost } = await invoicesByKey({ query: q }, m.merchantId, byKind('v2-create').filter((o) => o.answer.status === 201).map((o) => o.key));
    const withdrawalRows = (await withdrawalsByKeyIn(q)).filter((w) => w.merchant_id === m.merchantId);
    const events = await eventsPerSubject(stackDb, SUBJECT_KEYS);
    const ids = receiver.received.map((r) => r.headers['x-svc-delivery'] as string);
    const totals = await succeededDeliveryTotals(stackDb);
    const report = {
      ...tally(attempts),
      operations: ops.length,
      finals,
      failovers: { queues: queueFailover, gate: gateFailover },
      invoicesLost: invoicesLost.length,
      invoicesDuplicated,
      withdrawals: withdrawalRows.length,
      deliveries: { rows: totals.deliveries, attempts: totals.attempts, received: ids.length, distinct: new Set(ids).size },
      settledMs,
      // Processes the liveness probe restarted (a stuck queue worker), with the /healthz answer.
      restarts: probe?.restarts ?? [],
      durationMs: Date.now() - started,
      // Requests whose final answer was not the success expected, with every attempt's status.
      unexpected: ops.filter((o) => o.answer.status !== (o.kind === 'v2-pay' ? 200 : 201)).map((o) => ({ kind: o.kind, key: o.key, body: o.answer.body, attempts: o.attempts.map((a) => a.status || a.error) })),
    };
    await recordChaos('redis-cluster-failover', report);
    console.log(JSON.stringify(report));

    // Every request answered, finally, as it should be; no 5xx but the retryable 503, ever.
    expect(serverFailures(attempts)).toEqual([]);
    for (const o of ops) expect({ kind: o.kind, key: o.key, status: o.answer.status }).toEqual({ kind: o.kind, key: o.key, status: o.kind === 'v2-pay' ? 200 : 201 });

    // v2: one invoice per key answered 201, each paid once (one invoice.paid, the customer's total counts it once).
    expect({ lost: invoicesLost, duplicated: invoicesDuplicated }).toEqual({ lost: [], duplicated: 0 });
    const statuses = await invoiceStatusesIn(q, paid.map((p) => p.id));
    expect(statuses.filter((s) => s.status !== 'PAID')).toEqual([]);
    const customers = [...new Set(paid.map((p) => p.email))].sort();
    expect(await customerTotalsIn(q)).toEqual(
      customers.map((email) => {
        const n = paid.filter((p) => p.email === email).length;
        return { email, total_payments: n, total: (100 * n).toFixed(2) };
      }),
    );

    // Crypto: each invoice paid by its one transfer (four postings each), each withdrawal made once and held once.
    const cryptoInvoices = byKind('crypto-invoice').length;
    expect(await invoiceStatusCountsIn(q)).toEqual([{ status: 'Paid', n: cryptoInvoices + 1 }]); // + the funding invoice
    const w = byKind('withdrawal');
    expect(withdrawalRows.filter((r) => r.n !== 1)).toEqual([]);
    expect(withdrawalRows.map((r) => r.key).sort()).toEqual(w.map((o) => o.key).sort());
    expect(withdrawalRows.filter((r) => r.status !== 'Completed')).toEqual([]);
    const postings = Object.fromEntries((await postingsByKindIn(q)).map((p) => [p.kind, p]));
    for (const kind of ['deposit', 'deposit_detected', 'deposit_settled', 'fee']) expect({ kind, ...postings[kind] }).toEqual({ kind, ...postings[kind], n: cryptoInvoices + 1, subjects: cryptoInvoices + 1 });
    expect(postings.withdrawal_hold).toMatchObject({ n: w.length, subjects: w.length });

    // Events: one per subject and type; each delivered once to each endpoint subscribed, each delivery received once.
    const perType = new Map<string, { events: number; subjects: Set<string | null> }>();
    for (const e of events) {
      const k = `${e.source}:${e.type}`;
      const t = perType.get(k) ?? { events: 0, subjects: new Set() };
      t.events += e.n;
      t.subjects.add(e.subject);
      perType.set(k, t);
    }
    for (const [k, t] of perType) expect({ k, events: t.events }).toEqual({ k, events: t.subjects.size });
    expect(perType.get('invoicing:invoice.paid')?.events).toBe(paid.length);
    expect(perType.get('crypto:invoice.paid')?.events).toBe(cryptoInvoices + 1);
    expect(perType.get('crypto:withdrawal.completed')?.events).toBe(w.length);
    const eventCount = [...perType.values()].reduce((s, t) => s + t.events, 0);
    expect(totals).toEqual({ deliveries: eventCount, pairs: eventCount, attempts: totals.attempts, attempted: eventCount });
    expect(new Set(ids)).toEqual(new Set(await deliveryIds(stackDb)));
    expect(ids.length - new Set(ids).size).toBe(0);
  }, 480_000);
});
