import request from 'supertest';
import { randomUUID } from 'node:crypto';
import { ManualClock } from '@pay/runtime';
import { isEvmAddress, isTronAddress } from '../../chains/addresses';
import { registerMerchant, cryptoAppForSuite, testKeyFor } from '../../../test/test-support';

const clock = new ManualClock(Date.parse('2026-11-21T10:00:00.000Z'));
const ctx = cryptoAppForSuite({ clock });

describe('crypto invoices', () => {
  it('creates an invoice with its own valid deposit address, exact create shape', async () => {
    const m = await testKeyFor(ctx.app, await registerMerchant(ctx.app));
    const addresses = new Set<string>();
    for (const [currency, network, valid] of [
      ['USDT_TRC20', 'Tron', isTronAddress],
      ['USDT_ERC20', 'Ethereum', isEvmAddress],
      ['USDC_ERC20', 'Ethereum', isEvmAddress],
      ['USDT_BEP20', 'BSC', isEvmAddress],
      ['USDC_BEP20', 'BSC', isEvmAddress],
    ] as const) {
      const res = await request(ctx.app).post('/api/v1/invoices').set('X-Api-Key', m.apiKey).send({ amount: 10.5, currency });
      expect(res.status).toBe(201);
      const d = res.body.data;
      expect(Object.keys(d).sort()).toEqual(['address', 'amount', 'currency', 'expiresAt', 'id', 'network', 'paymentUrl', 'status'].sort());
      expect(d).toMatchObject({ amount: 10.5, currency, network, status: 'Pending' });
      expect(valid(d.address)).toBe(true);
      expect(d.expiresAt).toBe('2026-11-21T11:00:00.000Z'); // default 60 minutes
      expect(d.paymentUrl).toBe(`${ctx.deps.config.PUBLIC_URL}/pay/${d.id}`);
      addresses.add(d.address);
    }
    expect(addresses.size).toBe(5);
  });

  it('honours expiresInMinutes and returns the full shape on GET', async () => {
    const m = await testKeyFor(ctx.app, await registerMerchant(ctx.app));
    const created = await request(ctx.app)
      .post('/api/v1/invoices')
      .set('X-Api-Key', m.apiKey)
      .send({ amount: 1, currency: 'USDC_BEP20', description: 'Order 42', expiresInMinutes: 15 });
    expect(created.body.data.expiresAt).toBe(new Date(clock.now().getTime() + 15 * 60_000).toISOString());
    const got = await request(ctx.app).get(`/api/v1/invoices/${created.body.data.id}`).set('X-Api-Key', m.apiKey);
    expect(got.status).toBe(200);
    expect(got.body.data).toEqual({ ...created.body.data, description: 'Order 42', amountReceived: 0, paidAt: null, createdAt: clock.now().toISOString() });
  });

  it('lists newest first with paging and a status filter, and keeps test and live apart', async () => {
    const live = await registerMerchant(ctx.app);
    const test = await testKeyFor(ctx.app, live);
    for (let i = 1; i <= 3; i++) {
      await request(ctx.app).post('/api/v1/invoices').set('X-Api-Key', test.apiKey).send({ amount: i, currency: 'USDT_TRC20' });
      clock.advance(1000);
    }
    const page = await request(ctx.app).get('/api/v1/invoices?page=1&pageSize=2').set('X-Api-Key', test.apiKey);
    expect(page.body.data).toMatchObject({ totalCount: 3, page: 1, pageSize: 2 });
    expect(page.body.data.items.map((i: { amount: number }) => i.amount)).toEqual([3, 2]);
    const second = await request(ctx.app).get('/api/v1/invoices?page=2&pageSize=2').set('X-Api-Key', test.apiKey);
    expect(second.body.data.items.map((i: { amount: number }) => i.amount)).toEqual([1]);
    const liveList = await request(ctx.app).get('/api/v1/invoices').set('X-Api-Key', live.apiKey);
    expect(liveList.body.data.totalCount).toBe(0);
    const testId = page.body.data.items[0].id;
    expect((await request(ctx.app).get(`/api/v1/invoices/${testId}`).set('X-Api-Key', live.apiKey)).status).toBe(404);
    const filtered = await request(ctx.app).get('/api/v1/invoices?status=Paid').set('X-Api-Key', test.apiKey);
    expect(filtered.body.data.totalCount).toBe(0);
  });

  it('refuses live invoices while no live chain is connected (the money would be lost)', async () => {
    const live = await registerMerchant(ctx.app);
    const res = await request(ctx.app).post('/api/v1/invoices').set('X-Api-Key', live.apiKey).send({ amount: 5, currency: 'USDT_TRC20' });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'CURRENCY_NOT_ENABLED', message: expect.stringMatching(/test key/) });
  });

  it('refuses an unknown currency, too many decimals, a bad page and an unknown id', async () => {
    const m = await testKeyFor(ctx.app, await registerMerchant(ctx.app));
    const post = (body: object) => request(ctx.app).post('/api/v1/invoices').set('X-Api-Key', m.apiKey).send(body);
    const currency = await post({ amount: 5, currency: 'BTC' });
    expect(currency.status).toBe(400);
    expect(currency.body.error.details).toEqual([{ field: 'currency', message: expect.stringContaining('USDT_TRC20') }]);
    const decimals = await post({ amount: 1.1234567, currency: 'USDT_TRC20' });
    expect(decimals.status).toBe(400);
    expect(decimals.body.error.details).toEqual([{ field: 'amount', message: 'must have at most 6 decimal places' }]);
    const type = await post({ amount: '5', currency: 'USDT_TRC20' });
    expect(type.status).toBe(400);
    expect(type.body.error.details).toEqual([{ field: 'amount', message: 'must be number' }]);
    const paging = await request(ctx.app).get('/api/v1/invoices?page=0&pageSize=1000').set('X-Api-Key', m.apiKey);
    expect(paging.status).toBe(400);
    expect(paging.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual(['page', 'pageSize']);
    expect((await request(ctx.app).get(`/api/v1/invoices/${randomUUID()}`).set('X-Api-Key', m.apiKey)).status).toBe(404);
  });

  it('serves the payment page of an invoice', async () => {
    const m = await testKeyFor(ctx.app, await registerMerchant(ctx.app));
    const inv = (await request(ctx.app).post('/api/v1/invoices').set('X-Api-Key', m.apiKey).send({ amount: 12.34, currency: 'USDT_TRC20' })).body.data;
    const page = await request(ctx.app).get(new URL(inv.paymentUrl).pathname);
    expect(page.status).toBe(200);
    expect(page.text).toContain(inv.address);
    expect(page.text).toContain('12.34');
    expect((await request(ctx.app).get(`/pay/${randomUUID()}`)).status).toBe(404);
  });
});
