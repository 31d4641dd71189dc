import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { ManualClock } from '@pay/runtime';
import { eventsOf } from '@pay/webhooks';
import { registerMerchant, cryptoAppForSuite, testMerchant, type TestMerchant } from '../../../test/test-support';
import { trackTransfers } from './tracker';
import { ZERO_ADDRESS } from '../../chains/sandbox/sandbox';
import type { Chain, TransferRef } from '../../chains/port';
import { ledgerKinds } from '../../../test/ledger/store';

const clock = new ManualClock(Date.parse('2026-11-21T10:00:00.000Z'));
const ctx = cryptoAppForSuite({ clock });

const blocks = (n: number) => clock.advance(n * ctx.deps.config.SANDBOX_BLOCK_MS);
const api = (m: TestMerchant) => ({
  invoice: async (amount: number, currency = 'USDT_TRC20', extra: object = {}) =>
    (await request(ctx.app).post('/api/v1/invoices').set('X-Api-Key', m.apiKey).send({ amount, currency, ...extra })).body.data,
  transfer: (invoiceId: string, amount: number, extra: object = {}) =>
    request(ctx.app).post('/api/v1/sandbox/transactions').set('X-Api-Key', m.apiKey).send({ invoiceId, amount, ...extra }),
  get: async (path: string) => (await request(ctx.app).get(path).set('X-Api-Key', m.apiKey)).body.data,
  balance: async (currency = 'USDT_TRC20') => {
    const b = (await request(ctx.app).get('/api/v1/withdrawals/balance').set('X-Api-Key', m.apiKey)).body.data;
    return b.balances.find((x: { currency: string }) => x.currency === currency);
  },
});

async function events(merchantId: string) {
  const rows = await eventsOf(ctx.deps.db, { merchantId, isTest: true });
  return rows.map((r) => ({ merchantId: r.merchantId, event: r.type, body: r.body as Record<string, any> }));
}

describe('incoming transfers', () => {
  it('advance confirmations over time until Confirmed, then pay the invoice and credit the ledger net of fee', async () => {
    const m = await testMerchant(ctx.app);
    const a = api(m);
    const inv = await a.invoice(100);
    const res = await a.transfer(inv.id, 100);
    expect(res.status).toBe(201);
    const t = res.body.data;
    expect(t).toMatchObject({ invoiceId: inv.id, toAddress: inv.address, amount: 100, status: 'Pending', confirmations: 0, requiredConfirmations: 19, confirmedAt: null, blockNumber: null });
    expect(await a.balance()).toMatchObject({ available: 0, pending: 99, total: 99 });

    blocks(5);
    await trackTransfers(ctx.deps);
    expect(await a.get(`/api/v1/transactions/${t.id}`)).toMatchObject({ status: 'Pending', confirmations: 5 });

    blocks(14);
    await trackTransfers(ctx.deps);
    const confirmed = await a.get(`/api/v1/transactions/${t.id}`);
    expect(confirmed).toMatchObject({ status: 'Confirmed', confirmations: 19, confirmedAt: clock.now().toISOString() });
    expect(Number.isInteger(confirmed.blockNumber)).toBe(true);
    expect(await a.get(`/api/v1/invoices/${inv.id}`)).toMatchObject({ status: 'Paid', amountReceived: 100, paidAt: clock.now().toISOString() });
    expect(await a.balance()).toMatchObject({ available: 99, pending: 0, total: 99 });

    // Both are written in one transaction at one clock time: nothing orders them, so sort by kind.
    const sent = (await events(m.merchantId)).sort((x, y) => x.event.localeCompare(y.event));
    expect(sent.map((e) => e.event)).toEqual(['invoice.paid', 'transaction.confirmed']);
    expect(sent[1]!.body).toMatchObject({ event: 'transaction.confirmed', timestamp: clock.now().getTime(), transaction: { id: t.id, status: 'Confirmed', blockNumber: confirmed.blockNumber } });
    expect(sent[0]!.body).toMatchObject({ event: 'invoice.paid', invoice: { id: inv.id, status: 'Paid', amount: 100 } });

    const stats = (await request(ctx.app).get('/api/v1/merchants/stats').set('X-Api-Key', m.apiKey)).body.data;
    expect(stats).toEqual({ totalInvoices: 1, paidInvoices: 1, pendingInvoices: 0, expiredInvoices: 0, totalReceived: 100, totalFees: 1, availableBalance: 99 });
  });

  it('per network: Ethereum needs 12 confirmations, BSC 15', async () => {
    const m = await testMerchant(ctx.app);
    const a = api(m);
    const eth = await a.transfer((await a.invoice(5, 'USDC_ERC20')).id, 5);
    const bsc = await a.transfer((await a.invoice(5, 'USDT_BEP20')).id, 5);
    expect(eth.body.data.requiredConfirmations).toBe(12);
    expect(bsc.body.data.requiredConfirmations).toBe(15);
    blocks(12);
    await trackTransfers(ctx.deps);
    expect((await a.get(`/api/v1/transactions/${eth.body.data.id}`)).status).toBe('Confirmed');
    expect((await a.get(`/api/v1/transactions/${bsc.body.data.id}`)).status).toBe('Pending');
  });

  it('underpaid: PartiallyPaid, then Underpaid at expiry, with what was received kept in the balance', async () => {
    const m = await testMerchant(ctx.app);
    const a = api(m);
    const inv = await a.invoice(50, 'USDT_TRC20', { expiresInMinutes: 10 });
    await a.transfer(inv.id, 20);
    blocks(19);
    await trackTransfers(ctx.deps);
    expect(await a.get(`/api/v1/invoices/${inv.id}`)).toMatchObject({ status: 'PartiallyPaid', amountReceived: 20 });
    clock.advance(10 * 60_000);
    await trackTransfers(ctx.deps);
    expect(await a.get(`/api/v1/invoices/${inv.id}`)).toMatchObject({ status: 'Underpaid', amountReceived: 20 });
    expect(await a.balance()).toMatchObject({ available: 19.8 });
    expect((await events(m.merchantId)).map((e) => e.event)).toEqual(['transaction.confirmed']);
  });

  it('two partial transfers that reach the amount pay the invoice once', async () => {
    const m = await testMerchant(ctx.app);
    const a = api(m);
    const inv = await a.invoice(30);
    await a.transfer(inv.id, 10);
    await a.transfer(inv.id, 20);
    blocks(19);
    await trackTransfers(ctx.deps);
    expect(await a.get(`/api/v1/invoices/${inv.id}`)).toMatchObject({ status: 'Paid', amountReceived: 30 });
    expect((await events(m.merchantId)).map((e) => e.event).sort()).toEqual(['invoice.paid', 'transaction.confirmed', 'transaction.confirmed']);
  });

  it('overpaid: Paid, amountReceived shows the excess, all of it is credited', async () => {
    const m = await testMerchant(ctx.app);
    const a = api(m);
    const inv = await a.invoice(10);
    await a.transfer(inv.id, 12.5);
    blocks(19);
    await trackTransfers(ctx.deps);
    expect(await a.get(`/api/v1/invoices/${inv.id}`)).toMatchObject({ status: 'Paid', amountReceived: 12.5 });
    expect(await a.balance()).toMatchObject({ available: 12.375 });
  });

  it('late: a transfer after expiry is credited, and the invoice stays Expired', async () => {
    const m = await testMerchant(ctx.app);
    const a = api(m);
    const inv = await a.invoice(10, 'USDT_TRC20', { expiresInMinutes: 1 });
    clock.advance(61_000);
    await trackTransfers(ctx.deps);
    expect((await a.get(`/api/v1/invoices/${inv.id}`)).status).toBe('Expired');
    await a.transfer(inv.id, 10);
    blocks(19);
    await trackTransfers(ctx.deps);
    expect(await a.get(`/api/v1/invoices/${inv.id}`)).toMatchObject({ status: 'Expired', amountReceived: 0 });
    expect(await a.balance()).toMatchObject({ available: 9.9 });
    expect((await events(m.merchantId)).map((e) => e.event)).toEqual(['transaction.confirmed']);
  });

  it('a transfer seen before expiry still counts when it confirms after', async () => {
    const m = await testMerchant(ctx.app);
    const a = api(m);
    const inv = await a.invoice(10, 'USDT_TRC20', { expiresInMinutes: 1 });
    await a.transfer(inv.id, 10);
    clock.advance(61_000); // past expiry, and past 19 blocks too
    await trackTransfers(ctx.deps);
    expect((await a.get(`/api/v1/invoices/${inv.id}`)).status).toBe('Paid');
  });

  it('trackers running side by side settle each transfer once: one credit, one set of events', async () => {
    const m = await testMerchant(ctx.app);
    const a = api(m);
    const invoices = await Promise.all([10, 20, 30].map((amount) => a.invoice(amount)));
    for (const inv of invoices) expect((await a.transfer(inv.id, inv.amount)).status).toBe(201);
    blocks(19);
    // The ledger's unique keys would refuse a second posting anyway; what the trackers must
    // do is not try: each transfer applied by exactly one of them, and no failure logged.
    // The chain answers no tracker until all four have asked: all of them have read the same
    // pending transfers before any applies one, so they truly race.
    const sandbox = ctx.deps.chains.test;
    let asked = 0;
    let release!: () => void;
    const allAsked = new Promise<void>((r) => (release = r));
    // The sandbox in every other respect.
    const gated: Chain = Object.assign(Object.create(sandbox) as Chain, {
      transferState: async (ref: TransferRef) => {
        if (++asked === 4) release();
        await allAsked;
        return sandbox.transferState(ref);
      },
    });
    const deps = { ...ctx.deps, chains: { ...ctx.deps.chains, test: gated } };
    const failures = jest.spyOn(ctx.deps.logger, 'error');
    let logged: unknown[][];
    let passes: Awaited<ReturnType<typeof trackTransfers>>[];
    try {
      passes = await Promise.all(Array.from({ length: 4 }, () => trackTransfers(deps)));
    } finally {
      logged = [...failures.mock.calls]; // copied first: restoring clears the record
      failures.mockRestore();
    }
    expect(logged).toEqual([]);
    expect(passes.reduce((n, p) => n + p.updated, 0)).toBe(3);

    expect(await a.balance()).toMatchObject({ available: 59.4, pending: 0 }); // 60 less 1%
    expect(await ledgerKinds(ctx.deps.db, { merchantId: m.merchantId, kind: 'deposit' })).toHaveLength(3);
    const sent = (await events(m.merchantId)).map((e) => e.event).sort();
    expect(sent).toEqual(['invoice.paid', 'invoice.paid', 'invoice.paid', 'transaction.confirmed', 'transaction.confirmed', 'transaction.confirmed']);
  });

  it('a transfer from the zero address fails on chain: pending is released, nothing credited', async () => {
    const m = await testMerchant(ctx.app);
    const a = api(m);
    const inv = await a.invoice(10);
    const t = (await a.transfer(inv.id, 10, { fromAddress: ZERO_ADDRESS.Tron })).body.data;
    expect(await a.balance()).toMatchObject({ pending: 9.9 });
    blocks(2);
    await trackTransfers(ctx.deps);
    expect((await a.get(`/api/v1/transactions/${t.id}`)).status).toBe('Failed');
    expect(await a.balance()).toMatchObject({ available: 0, pending: 0, total: 0 });
    expect((await a.get(`/api/v1/invoices/${inv.id}`)).status).toBe('Pending');
  });

  it('reports balances beyond what a double holds, digit for digit', async () => {
    const m = await testMerchant(ctx.app);
    const a = api(m);
    const inv = await a.invoice(999999999.999999);
    for (let i = 0; i < 9; i++) await a.transfer(inv.id, 990000000.329999);
    blocks(19);
    await trackTransfers(ctx.deps);
    const res = await request(ctx.app).get('/api/v1/withdrawals/balance').set('X-Api-Key', m.apiKey);
    // 9 × (990000000.329999 − fee 9900000.003300), the fee rounded half-up per transfer.
    expect(res.text).toContain('"available":8820900002.940291');
    expect(res.text).toContain('"totalUsdValue":8820900002.940291');
  });

  it('lists transactions with the invoiceId filter; single transaction has blockNumber, list items do not', async () => {
    const m = await testMerchant(ctx.app);
    const a = api(m);
    const one = await a.invoice(1);
    const two = await a.invoice(2);
    await a.transfer(one.id, 1);
    await a.transfer(two.id, 2);
    const all = await a.get('/api/v1/transactions');
    expect(all.totalCount).toBe(2);
    expect(all.items[0]).not.toHaveProperty('blockNumber');
    const filtered = await a.get(`/api/v1/transactions?invoiceId=${one.id}`);
    expect(filtered.items.map((t: { invoiceId: string }) => t.invoiceId)).toEqual([one.id]);
    expect(Object.keys(await a.get(`/api/v1/transactions/${filtered.items[0].id}`))).toContain('blockNumber');
  });

  it('sandbox: refuses live keys, unknown invoices, bad sender addresses and a duplicate txHash', async () => {
    const m = await testMerchant(ctx.app);
    const a = api(m);
    const inv = await a.invoice(1);
    const live = await request(ctx.app).post('/api/v1/sandbox/transactions').set('X-Api-Key', (await registerMerchant(ctx.app)).apiKey).send({ invoiceId: inv.id, amount: 1 });
    expect(live.status).toBe(403);
    expect(live.body.error.code).toBe('FORBIDDEN');
    const unknown = await a.transfer('00000000-0000-4000-8000-000000000000', 1);
    expect(unknown.status).toBe(404);
    const badFrom = await a.transfer(inv.id, 1, { fromAddress: '0xdAC17F958D2ee523a2206206994597C13D831ec7' });
    expect(badFrom.status).toBe(400);
    expect(badFrom.body.error.code).toBe('INVALID_ADDRESS');
    const hash = randomBytes(32).toString('hex');
    expect((await a.transfer(inv.id, 1, { txHash: hash })).status).toBe(201);
    const dup = await a.transfer(inv.id, 1, { txHash: hash });
    expect(dup.status).toBe(409);
    // The same hash spelled otherwise is still the same transfer.
    expect((await a.transfer(inv.id, 1, { txHash: `0x${hash.toUpperCase()}` })).status).toBe(409);
  });
});

