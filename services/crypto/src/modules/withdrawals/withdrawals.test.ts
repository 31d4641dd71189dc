import request from 'supertest';
import crypto, { randomUUID } from 'node:crypto';
import { readableNumber } from '@pay/runtime';
import { eventually } from '@pay/testing';
import { abandonClaim } from '@pay/http/test';
import { eventsOf } from '@pay/webhooks';
import { fund, registerMerchant, signedRequest, cryptoAppForSuite, testMerchant, type TestMerchant } from '../../../test/test-support';
import { ZERO_ADDRESS } from '../../chains/sandbox/sandbox';
import { withdrawalCount, withdrawalRecipients } from '../../../test/withdrawals/store';

// Background on: the real outbox relay and BullMQ withdrawal worker process what is created.
const ctx = cryptoAppForSuite({ background: true, env: { WITHDRAWAL_DAILY_LIMIT: '500' } });

const TRON = 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7';
const ETH = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const withdraw = (m: TestMerchant, body: object) => signedRequest(ctx.app, m, 'post', '/api/v1/withdrawals', body);

/**
 * Sent as a careful client sends: a 503 SERVICE_UNAVAILABLE (on a loaded machine the replay
 * check's Redis or a database connection did not answer in time; nothing was done) is sent
 * again after its Retry-After, signed afresh, under the same Idempotency-Key. Any other
 * answer is final.
 */
async function untilFinal(send: () => PromiseLike<request.Response>, deadlineMs = 60_000): Promise<request.Response> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const res = await send();
    if (res.status !== 503 || Date.now() > deadline) return res;
    expect(res.body.error.code).toBe('SERVICE_UNAVAILABLE');
    await new Promise((r) => setTimeout(r, Number(res.headers['retry-after'] ?? 1) * 1000));
  }
}
const get = (m: TestMerchant, path: string) => request(ctx.app).get(path).set('X-Api-Key', m.apiKey);
const balanceOf = async (m: TestMerchant, currency: string) =>
  (await get(m, '/api/v1/withdrawals/balance')).body.data.balances.find((b: { currency: string }) => b.currency === currency);

describe('GET /api/v1/withdrawals/balance', () => {
  it('lists every currency of the spec, zero for a new merchant', async () => {
    const m = await registerMerchant(ctx.app);
    const res = await get(m, '/api/v1/withdrawals/balance');
    expect(res.status).toBe(200);
    expect(res.body.data.totalUsdValue).toBe(0);
    expect(res.body.data.balances).toEqual([
      { currency: 'USDT_TRC20', currencyName: 'Tether USD', network: 'Tron', networkName: 'Tron', available: 0, pending: 0, total: 0 },
      { currency: 'USDT_ERC20', currencyName: 'Tether USD', network: 'Ethereum', networkName: 'Ethereum', available: 0, pending: 0, total: 0 },
      { currency: 'USDC_ERC20', currencyName: 'USD Coin', network: 'Ethereum', networkName: 'Ethereum', available: 0, pending: 0, total: 0 },
      { currency: 'USDT_BEP20', currencyName: 'Tether USD', network: 'BSC', networkName: 'BSC', available: 0, pending: 0, total: 0 },
      { currency: 'USDC_BEP20', currencyName: 'USD Coin', network: 'BSC', networkName: 'BSC', available: 0, pending: 0, total: 0 },
    ]);
  });

  it('sums to totalUsdValue at 1 USD per stablecoin', async () => {
    const m = await testMerchant(ctx.app);
    await fund(ctx, m, 'USDT_TRC20', 100);
    await fund(ctx, m, 'USDC_ERC20', 10.1);
    const data = (await get(m, '/api/v1/withdrawals/balance')).body.data;
    expect(data.totalUsdValue).toBe(108.999); // 99 + 9.999, exact like every amount
  });
});

describe('POST /api/v1/withdrawals', () => {
  let m: TestMerchant;
  // A registration and two sandbox deposits tracked to confirmation: a dozen requests and
  // tracker passes, over the default 30 s when the machine is loaded twentyfold (seen here).
  beforeAll(async () => {
    m = await testMerchant(ctx.app);
    await fund(ctx, m, 'USDT_TRC20', 400);
    await fund(ctx, m, 'USDT_ERC20', 100);
  }, 120_000);

  it('creates a withdrawal: 1% fee, exact create shape, held from available, then Completed by the worker', async () => {
    const res = await withdraw(m, { toAddress: TRON, amount: 100, currency: 'USDT_TRC20' });
    expect(res.status).toBe(201);
    expect(res.body.message).toMatch(/created/);
    const w = res.body.data;
    expect(Object.keys(w).sort()).toEqual(['amount', 'createdAt', 'currency', 'fee', 'id', 'netAmount', 'network', 'status', 'toAddress', 'withdrawalNumber'].sort());
    expect(w).toMatchObject({ toAddress: TRON, amount: 100, fee: 1, netAmount: 99, currency: 'USDT_TRC20', network: 'Tron', status: 'Pending' });
    expect(w.withdrawalNumber).toMatch(new RegExp(`^WD-${w.createdAt.slice(0, 10).replace(/-/g, '')}-[0-9A-Z]{8}$`));
    expect((await balanceOf(m, 'USDT_TRC20')).available).toBe(296); // 396 - 100

    const done = await eventually(async () => {
      const d = (await get(m, `/api/v1/withdrawals/${w.id}`)).body.data;
      expect(d.status).toBe('Completed');
      return d;
    });
    expect(done).toMatchObject({ id: w.id, failureReason: null });
    expect(done.confirmations).toBeGreaterThanOrEqual(19);
    expect(done.txHash).toMatch(/^[0-9a-f]{64}$/);
    expect(Date.parse(done.processedAt)).toBeLessThanOrEqual(Date.parse(done.completedAt));
    expect((await balanceOf(m, 'USDT_TRC20')).available).toBe(296);
    const events = await eventsOf(ctx.deps.db, { merchantId: m.merchantId, isTest: true });
    const mine = events.filter((e: any) => e.body.withdrawal?.id === w.id) as any[];
    expect(mine.map((p) => p.type)).toEqual(['withdrawal.completed']);
    expect(mine[0].body.withdrawal).toMatchObject({ status: 'Completed', txHash: done.txHash });
  });

  it('Failed path: a transfer to the zero address is sent, fails on chain, and the funds come back', async () => {
    const before = (await balanceOf(m, 'USDT_ERC20')).available;
    const res = await withdraw(m, { toAddress: ZERO_ADDRESS.Ethereum, amount: 10, currency: 'USDT_ERC20' });
    expect(res.status).toBe(201);
    expect((await balanceOf(m, 'USDT_ERC20')).available).toBe(before - 10);
    const failed = await eventually(async () => {
      const d = (await get(m, `/api/v1/withdrawals/${res.body.data.id}`)).body.data;
      expect(d.status).toBe('Failed');
      return d;
    });
    expect(failed.failureReason).toMatch(/reverted/);
    expect(failed.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(failed.processedAt).not.toBeNull();
    expect(failed.completedAt).toBeNull();
    expect((await balanceOf(m, 'USDT_ERC20')).available).toBe(before);
    const events = await eventsOf(ctx.deps.db, { merchantId: m.merchantId, isTest: true });
    expect(events.filter((e: any) => e.body.withdrawal?.id === failed.id).map((e) => e.type)).toEqual(['withdrawal.failed']);
  });

  it('refuses more than the available balance: INSUFFICIENT_BALANCE (422)', async () => {
    const res = await withdraw(m, { toAddress: ETH, amount: 400, currency: 'USDC_ERC20' });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('INSUFFICIENT_BALANCE');
    expect(res.body.error.message).toMatch(/Available USDC_ERC20 balance is 0/);
  });

  it('refuses beyond the rolling 24-hour limit: WITHDRAWAL_LIMIT_EXCEEDED (422)', async () => {
    const n = await testMerchant(ctx.app);
    await fund(ctx, n, 'USDT_TRC20', 700);
    expect((await withdraw(n, { toAddress: TRON, amount: 300, currency: 'USDT_TRC20' })).status).toBe(201);
    const over = await withdraw(n, { toAddress: TRON, amount: 200.5, currency: 'USDT_TRC20' });
    expect(over.status).toBe(422);
    expect(over.body.error.code).toBe('WITHDRAWAL_LIMIT_EXCEEDED');
    expect(over.body.error.message).toMatch(/200 remains/);
    expect((await withdraw(n, { toAddress: TRON, amount: 200, currency: 'USDT_TRC20' })).status).toBe(201);
  });

  it('refuses below the test-mode minimum of 1: VALIDATION_ERROR (400) naming the minimum, nothing held', async () => {
    const before = (await balanceOf(m, 'USDT_TRC20')).available;
    const res = await withdraw(m, { toAddress: TRON, amount: 0.5, currency: 'USDT_TRC20' });
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({
      code: 'VALIDATION_ERROR',
      message: 'The minimum test-mode withdrawal of USDT_TRC20 is 1',
      details: [{ field: 'amount', message: 'must be at least 1' }],
    });
    expect((await balanceOf(m, 'USDT_TRC20')).available).toBe(before);
  });

  describe('a withdrawal to one of the platform’s own addresses', () => {
    /** An address this platform gave an invoice: another merchant's, in the other network of the same key space too. */
    const depositAddress = async (currency: string) => {
      const other = await testMerchant(ctx.app);
      const inv = await request(ctx.app).post('/api/v1/invoices').set('X-Api-Key', other.apiKey).send({ amount: 10, currency });
      expect(inv.status).toBe(201);
      return inv.body.data.address as string;
    };
    const expectRefused = (res: { status: number; body: any }) => {
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'INVALID_ADDRESS', message: expect.stringMatching(/one of this platform's own addresses/) });
      expect(res.body.error.details).toEqual([{ field: 'toAddress', message: 'must not be an address of this platform' }]);
    };

    it('is refused with INVALID_ADDRESS (400) in any spelling, and nothing is held or written', async () => {
      const n = await testMerchant(ctx.app);
      await fund(ctx, n, 'USDT_ERC20', 100);
      await fund(ctx, n, 'USDT_TRC20', 100);
      const evm = await depositAddress('USDC_BEP20');
      const tron = await depositAddress('USDT_TRC20');
      for (const [toAddress, currency] of [[evm, 'USDT_ERC20'], [evm.toLowerCase(), 'USDT_ERC20'], [`0x${evm.slice(2).toUpperCase()}`, 'USDT_ERC20'], [tron, 'USDT_TRC20']]) {
        expectRefused(await withdraw(n, { toAddress, amount: 10, currency }));
      }
      expect((await balanceOf(n, 'USDT_ERC20')).available).toBe(99);
      expect((await balanceOf(n, 'USDT_TRC20')).available).toBe(99);
      expect(await withdrawalCount(ctx.deps.db, n.merchantId)).toBe(0);
    });

    it('is refused under concurrency too: 30 racing requests, the platform’s ones refused, the others made, the balance exact', async () => {
      const n = await testMerchant(ctx.app);
      await fund(ctx, n, 'USDT_ERC20', 1000); // 990 available
      const own = await Promise.all(Array.from({ length: 5 }, () => depositAddress('USDT_ERC20')));
      const results = await Promise.all(
        Array.from({ length: 30 }, (_, i) => {
          const toAddress = i % 2 === 0 ? own[i % own.length]! : `0x${randomUUID().replace(/-/g, '').padEnd(40, '0')}`;
          const key = randomUUID();
          return untilFinal(() => withdraw(n, { toAddress: i % 4 === 0 ? toAddress.toLowerCase() : toAddress, amount: 10 + i, currency: 'USDT_ERC20' }).set('Idempotency-Key', key));
        }),
      );
      const made = results.filter((_, i) => i % 2 === 1);
      for (const r of results.filter((_, i) => i % 2 === 0)) expectRefused(r);
      for (const r of made) expect(r.status).toBe(201);
      const sent = Array.from({ length: 30 }, (_, i) => (i % 2 === 1 ? 10 + i : 0)).reduce((a, b) => a + b, 0);
      expect((await balanceOf(n, 'USDT_ERC20')).available).toBe(990 - sent);
      const withdrawn = await withdrawalRecipients(ctx.deps.db, n.merchantId);
      expect(withdrawn).toHaveLength(15);
      const ownLower = new Set(own.map((a) => a.toLowerCase()));
      expect(withdrawn.filter((toAddress) => ownLower.has(toAddress.toLowerCase()))).toEqual([]);
    });
  });

  it.each([
    ['wrong prefix', 'USDT_TRC20', 'AR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t'],
    ['bad Base58Check checksum', 'USDT_TRC20', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u'],
    ['wrong length', 'USDT_TRC20', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6'],
    ['an EVM address on Tron', 'USDT_TRC20', ETH],
    ['bad EIP-55 case', 'USDT_ERC20', '0xdAC17F958D2ee523a2206206994597C13D831eC7'],
    ['short EVM address', 'USDT_BEP20', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeA'],
    ['a Tron address on BSC', 'USDC_BEP20', TRON],
  ])('refuses %s: INVALID_ADDRESS (400)', async (_case, currency, toAddress) => {
    const res = await withdraw(m, { toAddress, amount: 5, currency });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_ADDRESS');
    expect(res.body.error.details).toEqual([{ field: 'toAddress', message: expect.any(String) }]);
  });

  it('accepts real-world addresses, checksummed and lower-case', async () => {
    for (const toAddress of ['0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48']) {
      expect((await withdraw(m, { toAddress, amount: 1, currency: 'USDT_ERC20' })).status).toBe(201);
    }
  });

  it('refuses an unknown currency, a string amount, missing fields and too many decimals (400)', async () => {
    const currency = await withdraw(m, { toAddress: TRON, amount: 5, currency: 'DOGE' });
    expect(currency.status).toBe(400);
    expect(currency.body.error.details[0].field).toBe('currency');
    const missing = await withdraw(m, {});
    expect(missing.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual(['amount', 'currency', 'toAddress']);
    const str = await withdraw(m, { toAddress: TRON, amount: '5', currency: 'USDT_TRC20' });
    expect(str.body.error.details).toEqual([{ field: 'amount', message: 'must be number' }]);
    const decimals = await withdraw(m, { toAddress: TRON, amount: 1.0000001, currency: 'USDT_TRC20' });
    expect(decimals.status).toBe(400);
  });

  it('refuses live withdrawals while no live chain is connected', async () => {
    const live = await registerMerchant(ctx.app);
    const res = await withdraw(live, { toAddress: TRON, amount: 5, currency: 'USDT_TRC20' });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('CURRENCY_NOT_ENABLED');
  });

  it('is HMAC-only: an unsigned request is refused', async () => {
    const res = await request(ctx.app).post('/api/v1/withdrawals').set('X-Api-Key', m.apiKey).send({ toAddress: TRON, amount: 5, currency: 'USDT_TRC20' });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('INVALID_SIGNATURE');
  });

  /** A merchant with 19.8 available, and one withdrawal of 5 to send (and retry) under one Idempotency-Key. */
  async function retriedWithdrawal() {
    const n = await testMerchant(ctx.app);
    await fund(ctx, n, 'USDT_TRC20', 20);
    const key = randomUUID();
    const send = (ts: number) =>
      signedRequest(ctx.app, n, 'post', '/api/v1/withdrawals', { toAddress: TRON, amount: 5, currency: 'USDT_TRC20' }, { now: ts }).set('Idempotency-Key', key);
    return { n, key, send };
  }

  it('replays the first answer for a repeated Idempotency-Key (and holds the funds once)', async () => {
    const { n, send } = await retriedWithdrawal();
    const a = await send(Date.now());
    const b = await send(Date.now() + 1000); // a new signature: a genuine retry
    expect(a.status).toBe(201);
    expect(b.body.data.id).toBe(a.body.data.id);
    expect((await balanceOf(n, 'USDT_TRC20')).available).toBe(14.8);
  });

  it('withdraws once when the process died between the commit and storing its answer', async () => {
    const { n, key, send } = await retriedWithdrawal();
    const first = await send(Date.now());
    expect(first.status).toBe(201);
    // What a crash right after the commit leaves: the key claimed, its answer never stored,
    // and the claim old enough for a retry to take it over.
    expect(await abandonClaim(ctx.deps.db, key)).toBe(1);
    const retry = await send(Date.now() + 1000);
    expect(retry.status).toBe(201);
    // The same withdrawal, as it stands now (the worker may have moved it on meanwhile).
    expect(retry.body.data).toEqual({ ...first.body.data, status: expect.stringMatching(/^(Pending|Processing|Completed)$/) });
    expect(await withdrawalCount(ctx.deps.db, n.merchantId)).toBe(1);
    expect((await balanceOf(n, 'USDT_TRC20')).available).toBe(14.8); // 19.8 − 5, held once
  });

  it('draws a new number when the random one is already taken, instead of failing', async () => {
    const n = await testMerchant(ctx.app);
    await fund(ctx, n, 'USDT_TRC20', 20);
    // The number's suffix comes 8 bytes at a time from a 1 KB pool (readableNumber). At its next
    // refill, the pool gets a marker, then the same 8 bytes twice: drawing until the marker
    // comes out leaves those two next, for the first withdrawal and the second one's first draw.
    const realFill = crypto.randomFillSync;
    const marker = crypto.randomBytes(8);
    const drawn = crypto.randomBytes(8); // fresh per run: the test databases outlive a run
    let refills = 0;
    const spy = jest.spyOn(crypto, 'randomFillSync').mockImplementation(((buf: Buffer, ...rest: unknown[]) => {
      (realFill as (...a: unknown[]) => Buffer)(buf, ...rest);
      if (refills++ === 0) Buffer.concat([marker, drawn, drawn]).copy(buf);
      return buf;
    }) as typeof crypto.randomFillSync);
    for (let i = 0; i < 200 && refills === 0; i++) readableNumber('WD', new Date());
    expect(refills).toBe(1);
    try {
      const a = await withdraw(n, { toAddress: TRON, amount: 5, currency: 'USDT_TRC20' });
      // Same body: signed a second later, so it is not refused as a replay.
      const b = await signedRequest(ctx.app, n, 'post', '/api/v1/withdrawals', { toAddress: TRON, amount: 5, currency: 'USDT_TRC20' }, { now: Date.now() + 1000 });
      expect([a.status, b.status]).toEqual([201, 201]);
      expect(b.body.data.withdrawalNumber).not.toBe(a.body.data.withdrawalNumber);
      // The first took the repeated bytes; the second drew them too (taken), then drew again.
      const suffixOf = (bytes: Buffer) => [...bytes].map((x) => '0123456789ABCDEFGHJKLMNPQRSTUVWXYZ'[x % 34]).join('');
      expect(a.body.data.withdrawalNumber.slice(-8)).toBe(suffixOf(drawn));
      expect(refills).toBe(1);
    } finally {
      spy.mockRestore();
    }
    expect((await balanceOf(n, 'USDT_TRC20')).available).toBe(9.8); // 19.8 − 2 × 5, each held once
  });
});

describe('reading withdrawals', () => {
  it('lists with defaults 1/20, list shape, status filter, paging; GET 404 for another merchant', async () => {
    const m = await testMerchant(ctx.app);
    await fund(ctx, m, 'USDT_TRC20', 100);
    const ids: string[] = [];
    for (const amount of [1, 2, 3]) ids.push((await withdraw(m, { toAddress: TRON, amount, currency: 'USDT_TRC20' })).body.data.id);
    const list = (await get(m, '/api/v1/withdrawals')).body.data;
    expect(list).toMatchObject({ totalCount: 3, page: 1, pageSize: 20 });
    expect(Object.keys(list.items[0]).sort()).toEqual(['amount', 'fee', 'id', 'netAmount', 'status', 'txHash', 'withdrawalNumber']);
    const paged = (await get(m, '/api/v1/withdrawals?page=2&pageSize=2')).body.data;
    expect(paged.items).toHaveLength(1);
    await eventually(async () => {
      const done = (await get(m, '/api/v1/withdrawals?status=Completed')).body.data;
      expect(done.totalCount).toBe(3);
    });
    expect((await get(m, '/api/v1/withdrawals?status=Failed')).body.data.totalCount).toBe(0);
    expect((await get(m, '/api/v1/withdrawals?status=Nope')).status).toBe(400);
    const other = await testMerchant(ctx.app);
    expect((await get(other, `/api/v1/withdrawals/${ids[0]}`)).status).toBe(404);
    expect((await get(m, `/api/v1/withdrawals/${randomUUID()}`)).status).toBe(404);
  });
});
