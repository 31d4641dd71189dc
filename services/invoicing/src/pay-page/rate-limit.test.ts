import request from 'supertest';
import { clockSigner, invoicingAppForSuite, newMerchant, startInvoicingApp } from '../../test/test-support';
import { systemClock } from '@pay/kit';

// Tight limits, so both are reached in a few requests: the pages' own, and the anonymous API's.
const ctx = invoicingAppForSuite({ env: { RATE_LIMIT_ANONYMOUS_PER_MINUTE: '1', RATE_LIMIT_PAGES_PER_MINUTE: '4' } });
const call = clockSigner(() => ctx.app, systemClock);

beforeAll(async () => {
  // Counters of earlier files in this worker's Redis db (same address, same minute).
  const keys = await ctx.deps.redis.keys('rl:invoicing:*');
  if (keys.length) await ctx.deps.redis.del(...keys);
});

describe('hosted pages rate limit', () => {
  it('counts pages per client address under their own limit, not the anonymous API limit, and answers 429 as a page with Retry-After', async () => {
    const m = await newMerchant(ctx.deps);
    const created = await call(m, 'post', '/api/v2/invoices', { amount: 100 });
    expect(created.status).toBe(201);
    const id = created.body.invoice.id as string;
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await request(ctx.app).get(i % 2 ? `/pay/${id}/status` : `/pay/${id}`)).status);
    expect(statuses).toEqual([200, 200, 200, 200]); // past the anonymous limit of 1
    const refused = await request(ctx.app).get(`/pay/${id}`);
    expect(refused.status).toBe(429);
    expect(refused.headers['content-type']).toMatch(/^text\/html/);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });
});

describe('behind a proxy (issue 28, finding 11)', () => {
  it('with TRUST_PROXY, clients behind one ingress are counted each by its own address; without it, X-Forwarded-For is ignored (not spoofable)', async () => {
    const proxied = await startInvoicingApp({ env: { TRUST_PROXY: '1', RATE_LIMIT_PAGES_PER_MINUTE: '2' } });
    try {
      const m = await newMerchant(proxied.deps);
      const id = (await clockSigner(() => proxied.app, systemClock)(m, 'post', '/api/v2/invoices', { amount: 100 })).body.invoice.id as string;
      const from = (client: string) => request(proxied.app).get(`/pay/${id}/status`).set('X-Forwarded-For', client);
      const a = [await from('203.0.113.7'), await from('203.0.113.7'), await from('203.0.113.7')].map((r) => r.status);
      expect(a).toEqual([200, 200, 429]);
      // Another client through the same ingress still has its budget.
      expect((await from('198.51.100.9')).status).toBe(200);
    } finally {
      await proxied.close();
    }
    // ctx has no TRUST_PROXY: a forged X-Forwarded-For does not buy a fresh budget.
    const m = await newMerchant(ctx.deps);
    const id = (await call(m, 'post', '/api/v2/invoices', { amount: 100 })).body.invoice.id as string;
    const keys = await ctx.deps.redis.keys('rl:invoicing:page:*');
    if (keys.length) await ctx.deps.redis.del(...keys);
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await request(ctx.app).get(`/pay/${id}/status`).set('X-Forwarded-For', `192.0.2.${i}`)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 429]);
  });
});
