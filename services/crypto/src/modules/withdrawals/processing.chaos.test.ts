import {
  apiClient,
  eventually,
  fundCryptoMerchant,
  killHard,
  recordChaos,
  registerCryptoMerchant,
  serverFailures,
  startChaosStack,
  tally,
  untilAnswered,
  type HttpAnswer,
} from '@pay/testing';
import { createWebhooksDb } from '@pay/webhooks';
import { eventsPerSubject } from '@pay/webhooks/test';
import { generateAddress } from '../../chains/addresses';
import { ZERO_ADDRESS } from '../../chains/sandbox/sandbox';
import { openWithdrawalsIn, withdrawalsByKeyIn, type SqlQuery } from '../../../test/withdrawals/store';
import { holdsAndReleasesIn } from '../../../test/ledger/store';

const MERCHANTS = 4;
const PER_MERCHANT = 20;
const FUNDED = 990; // 1,000 less the 1% fee

/** The j-th withdrawal of a merchant: 10 + j; every fifth to the zero address, which fails on chain by design. */
const planned = (j: number) => ({ amount: 10 + j, fails: j % 5 === 4 });

/**
 * Withdrawals in flight through a real crypto process (workers on) while Redis is flushed and
 * restarted under it, then while the process is killed with SIGKILL and another one started:
 * every withdrawal ends Completed, or Failed where designed (the zero address); each is made
 * once per Idempotency-Key, held once, released once if it failed, reported once in
 * webhooks.events; every balance is the funding less what was completed.
 */
it('finishes every withdrawal exactly once through a Redis flush and a kill -9 of the crypto process', async () => {
  const started = Date.now();
  const stack = await startChaosStack('withdrawal-processing');
  try {
    // Confirmations in about 1 s (19 blocks of 50 ms); lost jobs given back every second.
    const env = { WITHDRAWAL_DAILY_LIMIT: '100000', SANDBOX_BLOCK_MS: '50', WITHDRAWAL_POLL_MS: '100', RECONCILE_INTERVAL_MS: '1000' };
    let svc = await stack.spawn('crypto', env);
    const merchants = await Promise.all(
      Array.from({ length: MERCHANTS }, async () => {
        const m = await registerCryptoMerchant(svc.url);
        await fundCryptoMerchant(svc.url, m, 'USDT_TRC20', 1000);
        return { ...m, client: apiClient(() => svc.url, m, 'crypto') };
      }),
    );
    const answers: HttpAnswer[][] = [];
    const withdraw = (m: (typeof merchants)[number], j: number) => {
      const { amount, fails } = planned(j);
      const body = { toAddress: fails ? ZERO_ADDRESS.Tron : generateAddress('Tron'), amount, currency: 'USDT_TRC20' };
      return untilAnswered(() => m.client.signed('POST', '/api/v1/withdrawals', body, { 'Idempotency-Key': `w-${j}` }), 120_000).then((r) => {
        answers.push(r.attempts);
        return r.answer;
      });
    };
    const wave = (from: number, to: number) => merchants.flatMap((m) => Array.from({ length: to - from }, (_, i) => withdraw(m, from + i)));
    const query: SqlQuery = (text, values) => stack.query(text, values);
    const open = () => openWithdrawalsIn(query);

    // Half of them made; Redis loses every job, claim and lock while they are being processed.
    const first = await Promise.all(wave(0, PER_MERCHANT / 2));
    const openAtFlush = await open();
    await stack.redis.flushAndRestart();

    // The other half on their way when the process dies; another takes over, clients retry.
    const second = wave(PER_MERCHANT / 2, PER_MERCHANT);
    await eventually(() => expect(answers.length).toBeGreaterThanOrEqual(MERCHANTS * PER_MERCHANT * 0.6), 60_000);
    const openAtKill = await open();
    const killedAt = Date.now();
    await killHard(svc);
    svc = await stack.spawn('crypto', env);
    const created = [...first, ...(await Promise.all(second))];
    // Jobs running in the killed process come back when BullMQ finds them stalled (their lock, 30 s, ran out).
    await eventually(async () => expect(await open()).toBe(0), 120_000, 250);
    const settledAfterKillMs = Date.now() - killedAt;

    // Each withdrawal (its store), its holds and releases (the ledger's), its events (webhooks'): read once everything has settled.
    const webhooksDb = createWebhooksDb(stack.postgres.url, 1);
    const [withdrawals, entries, events] = await Promise.all([
      withdrawalsByKeyIn(query),
      holdsAndReleasesIn(query),
      eventsPerSubject(webhooksDb, ['withdrawal'], { types: ['withdrawal.completed', 'withdrawal.failed'] }).finally(() => webhooksDb.$close()),
    ]);
    const eventsOf = new Map<string | null, { completed: number; failed: number }>();
    for (const e of events) {
      const of = eventsOf.get(e.subject) ?? { completed: 0, failed: 0 };
      if (e.type === 'withdrawal.completed') of.completed += e.n;
      else of.failed += e.n;
      eventsOf.set(e.subject, of);
    }
    const rows = withdrawals.map((w) => ({
      ...w,
      holds: entries.get(w.id)?.holds ?? 0,
      releases: entries.get(w.id)?.releases ?? 0,
      completed: eventsOf.get(w.id)?.completed ?? 0,
      failed: eventsOf.get(w.id)?.failed ?? 0,
    }));
    const expected = merchants.flatMap((m) => Array.from({ length: PER_MERCHANT }, (_, j) => ({ merchant_id: m.merchantId, key: `w-${j}`, ...planned(j) })));
    const found = new Map(rows.map((r) => [`${r.merchant_id}/${r.key}`, r]));
    const lost = expected.filter((e) => !found.has(`${e.merchant_id}/${e.key}`));
    const attempts = answers.flat();
    const balances = await Promise.all(merchants.map((m) => m.client.keyed('GET', '/api/v1/withdrawals/balance')));
    await recordChaos('withdrawal-processing', {
      ...tally(attempts),
      withdrawals: expected.length,
      created: rows.length,
      completed: rows.filter((r) => r.status === 'Completed').length,
      failedByDesign: rows.filter((r) => r.status === 'Failed').length,
      openAtFlush,
      openAtKill,
      settledAfterKillMs,
      lost: lost.length,
      duplicated: rows.length - found.size,
      holds: rows.reduce((s, r) => s + r.holds, 0),
      releases: rows.reduce((s, r) => s + r.releases, 0),
      events: rows.reduce((s, r) => s + r.completed + r.failed, 0),
      durationMs: Date.now() - started,
    });

    expect(openAtFlush).toBeGreaterThan(0); // the flush came mid-processing
    expect(serverFailures(attempts)).toEqual([]);
    expect(created.map((a) => a.status)).toEqual(expected.map(() => 201));
    expect(lost).toEqual([]);
    expect(rows).toHaveLength(expected.length); // one withdrawal per key
    for (const e of expected) {
      const r = found.get(`${e.merchant_id}/${e.key}`)!;
      const outcome = e.fails
        ? { status: 'Failed', amount: `${e.amount}.000000`, holds: 1, releases: 1, completed: 0, failed: 1 }
        : { status: 'Completed', amount: `${e.amount}.000000`, holds: 1, releases: 0, completed: 1, failed: 0 };
      expect({ key: r.key, status: r.status, amount: r.amount, holds: r.holds, releases: r.releases, completed: r.completed, failed: r.failed }).toEqual({ key: e.key, ...outcome });
    }
    const completedSum = Array.from({ length: PER_MERCHANT }, (_, j) => planned(j)).reduce((s, p) => s + (p.fails ? 0 : p.amount), 0);
    for (const b of balances) expect(b.body.data.balances[0]).toMatchObject({ currency: 'USDT_TRC20', available: FUNDED - completedSum, pending: 0 });
  } finally {
    await stack.close();
  }
}, 240_000);
