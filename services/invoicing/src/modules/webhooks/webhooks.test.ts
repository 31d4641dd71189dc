import { randomUUID } from 'node:crypto';
import { consoleSignIn, invoicingAppForSuite, newMerchant, startInvoicingApp, v2Request, type TestMerchant } from '../../../test/test-support';

const ctx = invoicingAppForSuite();
const v2 = (m: TestMerchant, method: 'get' | 'post' | 'patch' | 'delete', path: string, body?: unknown, headers?: Record<string, string>) =>
  v2Request(ctx.app, m, method, path, body, { headers });

const hook = { url: 'https://hooks.example.com/pay', events: ['invoice.paid', 'kyc.passed'], description: ' Orders ' };

describe('webhooks through the v2 API', () => {
  it('creates, lists (paged), reads, changes, disables, enables and deletes a webhook; the console sees the same one', async () => {
    const m = await newMerchant(ctx.deps);
    const created = await v2(m, 'post', '/api/v2/webhooks', hook);
    expect(created.status).toBe(201);
    const w = created.body.webhook;
    expect(created.body).toMatchObject({ success: true, webhook: { url: hook.url, events: hook.events, description: 'Orders', mode: 'test', enabled: true, disabledAt: null, disabledReason: null } });
    expect(w.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    await v2(m, 'post', '/api/v2/webhooks', { url: 'https://b.example.com/', events: ['invoice.expired'] });

    const list = await v2(m, 'get', '/api/v2/webhooks?limit=1');
    expect(list.status).toBe(200);
    expect(list.body.pagination).toEqual({ total: 2, limit: 1, offset: 0, pages: 2 });
    expect(list.body.data.map((x: { id: string }) => x.id)).toEqual([w.id]);
    expect((await v2(m, 'get', '/api/v2/webhooks?limit=1&offset=1')).body.data[0].url).toBe('https://b.example.com/');

    const one = await v2(m, 'get', `/api/v2/webhooks/${w.id}`);
    expect(one.body.webhook).toEqual(w);
    const { agent } = await consoleSignIn(ctx.app, m.apiKey);
    expect((await agent.get(`/console/api/webhooks/${w.id}`)).body).toMatchObject({ id: w.id, secret: w.secret, enabled: true });

    const patched = await v2(m, 'patch', `/api/v2/webhooks/${w.id}`, { url: 'https://c.example.com/h', events: ['invoice.refunded'], description: null });
    expect(patched.status).toBe(200);
    expect(patched.body.webhook).toMatchObject({ url: 'https://c.example.com/h', events: ['invoice.refunded'], description: null, secret: w.secret });

    const off = await v2(m, 'patch', `/api/v2/webhooks/${w.id}`, { enabled: false });
    expect(off.body.webhook).toMatchObject({ enabled: false, disabledReason: 'disabled by the merchant' });
    expect(Date.parse(off.body.webhook.disabledAt)).not.toBeNaN();
    const on = await v2(m, 'patch', `/api/v2/webhooks/${w.id}`, { enabled: true });
    expect(on.body.webhook).toMatchObject({ enabled: true, disabledAt: null, disabledReason: null, failingSince: null });

    expect((await v2(m, 'delete', `/api/v2/webhooks/${w.id}`)).body).toEqual({ success: true, id: w.id, deleted: true });
    expect((await v2(m, 'get', `/api/v2/webhooks/${w.id}`)).status).toBe(404);
    expect((await agent.get(`/console/api/webhooks/${w.id}`)).status).toBe(404);
  });

  it('answers a retried create with the same Idempotency-Key once', async () => {
    const m = await newMerchant(ctx.deps);
    const key = randomUUID();
    const a = await v2(m, 'post', '/api/v2/webhooks', hook, { 'Idempotency-Key': key });
    const b = await v2(m, 'post', '/api/v2/webhooks', hook, { 'Idempotency-Key': key });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.body.webhook.id).toBe(a.body.webhook.id);
    expect((await v2(m, 'get', '/api/v2/webhooks')).body.pagination.total).toBe(1);
  });

  it('checks URLs and events as the console does: the same refusals, nothing written', async () => {
    const m = await newMerchant(ctx.deps);
    const post = (body: object) => v2(m, 'post', '/api/v2/webhooks', body);
    const bad = await post({ url: 'ftp://x', events: ['invoice.paid'] });
    expect([bad.status, bad.body.error.code, bad.body.error.details[0].field]).toEqual([400, 'VALIDATION_ERROR', 'url']);
    expect((await post({ url: 'https://a.example.com', events: [] })).body.error.details[0].field).toBe('events');
    expect((await post({ url: 'https://a.example.com', events: ['invoice.exploded'] })).status).toBe(400);
    expect((await post({ url: 'https://a.example.com', events: ['invoice.paid'], mode: 'live' })).status).toBe(400);
    for (const url of ['http://127.0.0.1:8080/hook', 'http://localhost/hook', 'http://[::1]/hook', 'http://169.254.169.254/latest']) {
      const r = await post({ url, events: ['invoice.paid'] });
      expect([r.status, r.body.error.message]).toEqual([400, expect.stringMatching(/private, loopback or link-local/)]);
    }
    const id = (await post(hook)).body.webhook.id as string;
    const moved = await v2(m, 'patch', `/api/v2/webhooks/${id}`, { url: 'http://10.0.0.1/hook' });
    expect([moved.status, moved.body.error.details]).toEqual([400, [{ field: 'url', message: expect.stringMatching(/private/) }]]);
    expect((await v2(m, 'patch', `/api/v2/webhooks/${id}`, {})).status).toBe(400);
    expect((await v2(m, 'patch', `/api/v2/webhooks/${id}`, { enabled: 'no' })).status).toBe(400);
    expect((await v2(m, 'get', `/api/v2/webhooks/${id}`)).body.webhook.url).toBe(hook.url);
    expect((await v2(m, 'get', '/api/v2/webhooks')).body.pagination.total).toBe(1);
  });

  it('requires HTTPS in production', async () => {
    const prod = await startInvoicingApp({ env: { NODE_ENV: 'production' } });
    try {
      const m = await newMerchant(prod.deps);
      const http = await v2Request(prod.app, m, 'post', '/api/v2/webhooks', { url: 'http://hooks.example.com/', events: ['invoice.paid'] });
      expect([http.status, http.body.error.message]).toEqual([400, 'url must use https']);
      expect((await v2Request(prod.app, m, 'post', '/api/v2/webhooks', { url: 'https://hooks.example.com/', events: ['invoice.paid'] })).status).toBe(201);
    } finally {
      await prod.close();
    }
  });

  it('rotates the secret: the API keeps the old one signing 24 h by default, the console stops it at once unless asked', async () => {
    const m = await newMerchant(ctx.deps);
    const w = (await v2(m, 'post', '/api/v2/webhooks', hook)).body.webhook;
    expect(w.previousSecretExpiresAt).toBeNull();
    const before = Date.now();
    const r = await v2(m, 'post', `/api/v2/webhooks/${w.id}/rotate-secret`);
    expect(r.status).toBe(200);
    expect(r.body.secret).toMatch(/^whsec_/);
    expect(r.body.secret).not.toBe(w.secret);
    const until = Date.parse(r.body.previousSecretExpiresAt);
    expect(until - before).toBeGreaterThanOrEqual(24 * 3600_000 - 5_000);
    expect(until - before).toBeLessThanOrEqual(24 * 3600_000 + 60_000);
    expect((await v2(m, 'get', `/api/v2/webhooks/${w.id}`)).body.webhook).toMatchObject({ secret: r.body.secret, previousSecretExpiresAt: r.body.previousSecretExpiresAt });
    const none = await v2(m, 'post', `/api/v2/webhooks/${w.id}/rotate-secret`, { overlapSeconds: 0 });
    expect(none.body.previousSecretExpiresAt).toBeNull();
    for (const overlapSeconds of [604801, -1, 1.5, '60']) {
      const bad = await v2(m, 'post', `/api/v2/webhooks/${w.id}/rotate-secret`, { overlapSeconds });
      expect([bad.status, bad.body.error.details[0].field]).toEqual([400, 'overlapSeconds']);
    }
    expect((await v2(m, 'get', `/api/v2/webhooks/${w.id}`)).body.webhook.secret).toBe(none.body.secret);
    // The console's rotate is the spec's: the old secret stops at once, unless its user picks an overlap.
    const { agent, csrf } = await consoleSignIn(ctx.app, m.apiKey);
    const c = await agent.post(`/console/api/webhooks/${w.id}/rotate-secret`).set('X-CSRF-Token', csrf);
    expect([c.status, c.body.previousSecretExpiresAt]).toEqual([200, null]);
    const picked = await agent.post(`/console/api/webhooks/${w.id}/rotate-secret`).set('X-CSRF-Token', csrf).send({ overlapSeconds: 3600 });
    expect(Date.parse(picked.body.previousSecretExpiresAt)).toBeGreaterThan(Date.now() + 3500_000);
  });

  it("never shows or changes another merchant's webhook, nor another mode's: 404", async () => {
    const a = await newMerchant(ctx.deps);
    const b = await newMerchant(ctx.deps);
    const aLive = { ...a, apiKey: a.liveKey };
    const id = (await v2(a, 'post', '/api/v2/webhooks', hook)).body.webhook.id as string;
    for (const who of [b, aLive]) {
      expect((await v2(who, 'get', '/api/v2/webhooks')).body.data).toEqual([]);
      expect((await v2(who, 'get', `/api/v2/webhooks/${id}`)).status).toBe(404);
      expect((await v2(who, 'patch', `/api/v2/webhooks/${id}`, { enabled: false })).status).toBe(404);
      expect((await v2(who, 'delete', `/api/v2/webhooks/${id}`)).status).toBe(404);
      expect((await v2(who, 'post', `/api/v2/webhooks/${id}/rotate-secret`)).status).toBe(404);
    }
    expect((await v2(a, 'get', `/api/v2/webhooks/${id}`)).body.webhook.enabled).toBe(true);
  });

  it('refuses unsigned calls', async () => {
    const m = await newMerchant(ctx.deps);
    const { default: request } = await import('supertest');
    const r = await request(ctx.app).get('/api/v2/webhooks').set('x-api-key', m.apiKey);
    expect(r.status).toBe(401);
  });
});
