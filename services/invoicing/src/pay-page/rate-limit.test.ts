import request from 'supertest';
import { clockSigner, invoicingAppForSuite, newMerchant } from '../../test/test-support';
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
