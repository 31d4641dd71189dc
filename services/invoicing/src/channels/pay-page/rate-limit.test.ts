import request from 'supertest';
import { invoiceColumns } from '../../../test/invoices/store';
import { countReceiptsOf } from '../../../test/receipts/store';
import { clockSigner, invoicingAppForSuite, newMerchant, startInvoicingApp } from '../../../test/test-support';
import { systemClock } from '@pay/runtime';

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
    await withinOneWindow(60_000, 20_000);
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
      await withinOneWindow(60_000, 20_000);
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
    await withinOneWindow(60_000, 20_000);
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await request(ctx.app).get(`/pay/${id}/status`).set('X-Forwarded-For', `192.0.2.${i}`)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 429]);
  });
});

/**
 * The client's address is not enough (deliverable 10): many clients, or addresses forged behind
 * a trusted proxy, could hammer one invoice's page, its receipt upload and its card payment.
 * Each invoice has a budget of its own, across every client.
 */
describe('per invoice, across every client (issue 28, deliverable 10)', () => {
  it('refuses one invoice’s page, status, card payment and receipt upload past its budget whatever the address, 429 with Retry-After, and leaves other invoices alone', async () => {
    const app = await startInvoicingApp({ env: { TRUST_PROXY: '1', RATE_LIMIT_PAGE_PER_INVOICE_PER_MINUTE: '4' } });
    try {
      const signed = clockSigner(() => app.app, systemClock);
      const m = await newMerchant(app.deps);
      const create = async () => (await signed(m, 'post', '/api/v2/invoices', { amount: 100, paymentMethod: 'card', receiptRequired: true })).body.invoice.id as string;
      const [target, other] = [await create(), await create()];
      await withinOneWindow(60_000, 20_000);
      // Each request from another client: the addresses' own budgets are far from spent.
      let client = 0;
      const from = (test: request.Test) => test.set('X-Forwarded-For', `203.0.113.${++client}`);
      const page = (id: string) => from(request(app.app).get(`/pay/${id}`));
      const allowed = [await page(target), await from(request(app.app).get(`/pay/${target}/status`)), await page(target), await page(target)];
      expect(allowed.map((r) => r.status)).toEqual([200, 200, 200, 200]);
      expect(allowed.map((r) => r.headers['x-ratelimit-remaining'])).toEqual(['3', '2', '1', '0']);

      const html = await page(target);
      expect(html.status).toBe(429);
      expect(html.headers['content-type']).toMatch(/^text\/html/);
      expect(html.text).toContain('data-refusal="tooMany"');
      expect(Number(html.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(Number(html.headers['retry-after'])).toBeLessThanOrEqual(60);
      // The same invoice named with capital letters is the same invoice.
      expect((await page(target.toUpperCase())).status).toBe(429);
      const json = await from(request(app.app).get(`/pay/${target}/status`));
      expect(json.status).toBe(429);
      expect(json.body).toMatchObject({ success: false, error: { code: 'RATE_LIMITED' } });
      expect(Number(json.headers['retry-after'])).toBeGreaterThanOrEqual(1);

      // A valid card and a receipt file are refused before anything is charged or stored.
      const card = await from(request(app.app).post(`/pay/${target}/card`).type('form').send({ number: '4242 4242 4242 4242', expiry: '12/30', cvc: '123' }));
      expect(card.status).toBe(429);
      const upload = await from(request(app.app).post(`/pay/${target}/receipt`).attach('file', Buffer.from('%PDF-1.4 receipt'), 'r.pdf'));
      expect(upload.status).toBe(429);
      expect(upload.headers['content-type']).toMatch(/^text\/html/);
      const stored = await invoiceColumns(app.deps.db, target, ['status']);
      expect(stored!.status).toBe('PENDING');
      expect(await countReceiptsOf(app.deps.db, [target])).toBe(0);

      // Another invoice has its own budget, from the same clients.
      client = 0;
      expect([(await page(other)).status, (await from(request(app.app).get(`/pay/${other}/status`))).status]).toEqual([200, 200]);
    } finally {
      await app.close();
    }
  });
});

/**
 * Fixed windows: a test counting up to a limit must not straddle a window's end, where the
 * counters start again. Returns at once when `needMs` is left in the current window, else when
 * the next one begins.
 */
async function withinOneWindow(windowMs: number, needMs: number): Promise<void> {
  const left = windowMs - (Date.now() % windowMs);
  if (left < needMs) await new Promise((resolve) => setTimeout(resolve, left + 10));
}
