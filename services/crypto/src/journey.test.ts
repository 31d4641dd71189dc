import request from 'supertest';
import { eventually } from '@pay/testing';
import { eventsOf } from '@pay/webhooks';
import { DOCUMENTED_WEBHOOK_HEADERS } from '@pay/webhooks/test';
import { assertValid } from '@pay/schemas';
import { cryptoEvents, type CryptoEvent } from './event-catalogue';
import { registerMerchant, signedRequest, startCryptoApp, type CryptoTestApp, testKeyFor } from '../test/test-support';
import { ZERO_ADDRESS } from './chains/sandbox/sandbox';

/**
 * The whole crypto path a merchant walks, over HTTP only: the relay, chain tracker and
 * withdrawal worker run in the background as in production, and every event is recorded
 * for delivery.
 */
let ctx: CryptoTestApp;
beforeAll(async () => {
  // Blocks slow enough (15 BSC confirmations ≈ 0.6 s) that the pending balance can be seen
  // before the transfer confirms, even on a loaded machine.
  ctx = await startCryptoApp({ background: true, env: { SANDBOX_BLOCK_MS: '40' } });
});
afterAll(async () => {
  await ctx.close();
});

it('register → test key → invoice → transfer → confirmed → withdraw → Completed; zero address → Failed and refunded', async () => {
  const m = await testKeyFor(ctx.app, await registerMerchant(ctx.app));
  const get = async (path: string) => (await request(ctx.app).get(path).set('X-Api-Key', m.apiKey)).body.data;
  const available = async () => (await get('/api/v1/withdrawals/balance')).balances.find((b: { currency: string }) => b.currency === 'USDT_BEP20');

  const invoice = (await request(ctx.app).post('/api/v1/invoices').set('X-Api-Key', m.apiKey).send({ amount: 250, currency: 'USDT_BEP20' })).body.data;
  const transfer = (await request(ctx.app).post('/api/v1/sandbox/transactions').set('X-Api-Key', m.apiKey).send({ invoiceId: invoice.id, amount: 250 })).body.data;
  expect(await available()).toMatchObject({ available: 0, pending: 247.5 });

  const confirmed = await eventually(async () => {
    const t = await get(`/api/v1/transactions/${transfer.id}`);
    expect(t.status).toBe('Confirmed');
    return t;
  });
  expect(confirmed.confirmations).toBeGreaterThanOrEqual(15);
  expect((await get(`/api/v1/invoices/${invoice.id}`)).status).toBe('Paid');
  expect(await available()).toMatchObject({ available: 247.5, pending: 0, total: 247.5 });

  const ok = await signedRequest(ctx.app, m, 'post', '/api/v1/withdrawals', {
    toAddress: '0x55d398326f99059fF775485246999027B3197955',
    amount: 100,
    currency: 'USDT_BEP20',
  });
  expect(ok.status).toBe(201);
  expect(ok.body.data).toMatchObject({ fee: 1, netAmount: 99, status: 'Pending' });
  const bad = await signedRequest(ctx.app, m, 'post', '/api/v1/withdrawals', { toAddress: ZERO_ADDRESS.BSC, amount: 40, currency: 'USDT_BEP20' });
  expect(bad.status).toBe(201);
  expect((await available()).available).toBe(107.5);

  await eventually(async () => {
    expect((await get(`/api/v1/withdrawals/${ok.body.data.id}`)).status).toBe('Completed');
    expect((await get(`/api/v1/withdrawals/${bad.body.data.id}`)).status).toBe('Failed');
  });
  expect((await available()).available).toBe(147.5); // 247.5 − 100; the failed 40 came back

  const events = await eventsOf(ctx.deps.db, { merchantId: m.merchantId, isTest: true });
  expect(events.map((e) => e.type).sort()).toEqual(['invoice.paid', 'transaction.confirmed', 'withdrawal.completed', 'withdrawal.failed']);
  for (const e of events) {
    expect(e).toMatchObject({ source: 'crypto', isTest: true, body: { event: e.type, timestamp: expect.any(Number) } });
    // The body is exactly what the OpenAPI webhooks section documents for its kind.
    expect(() => assertValid(cryptoEvents.bodies[e.type as CryptoEvent], e.body, { what: e.type })).not.toThrow();
  }
  const doc = (await request(ctx.app).get('/openapi.json')).body;
  expect(Object.keys(doc.webhooks).sort()).toEqual(['invoice.paid', 'transaction.confirmed', 'withdrawal.completed', 'withdrawal.failed']);
  expect(doc.webhooks['withdrawal.failed'].post.parameters.map((p: { name: string; required: boolean }) => [p.name, p.required])).toEqual(DOCUMENTED_WEBHOOK_HEADERS);
});
