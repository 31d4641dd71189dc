import { DOCUMENTED_WEBHOOK_HEADERS } from '@pay/webhooks/test';
import request from 'supertest';
import { createApiKey, revokeApiKey } from '@pay/accounts';
import { ManualClock } from '@pay/runtime';
import { consoleSignIn, invoicingAppForSuite, newMerchant, startInvoicingApp, type TestMerchant } from '../../../test/test-support';

const clock = new ManualClock(Date.now());
const ctx = invoicingAppForSuite({ clock });

const signIn = (m: Pick<TestMerchant, 'apiKey'>, app = ctx.app) => consoleSignIn(app, m.apiKey);

const hookBody = { url: 'https://hooks.example.com/pay', events: ['invoice.paid', 'kyc.passed'], description: 'Orders' };

describe('console sign-in', () => {
  it('takes an API key and sets an HttpOnly SameSite=Strict session cookie scoped to /console', async () => {
    const m = await newMerchant(ctx.deps);
    const { res } = await signIn(m);
    expect(res.body).toMatchObject({ success: true, merchant: { id: m.merchantId, companyName: 'Acme Ltd', mode: 'test' } });
    expect(res.body.csrfToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const cookie = res.headers['set-cookie']![0]!;
    expect(cookie).toMatch(/^console_session=[A-Za-z0-9_-]{43};/);
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; SameSite=Strict/);
    expect(cookie).toMatch(/; Path=\/console/);
    expect(cookie).not.toMatch(/Secure/);
  });

  it('marks the cookie Secure behind TLS', async () => {
    const tls = await startInvoicingApp({ env: { PUBLIC_URL: 'https://pay.example.com' } });
    try {
      const m = await newMerchant(tls.deps);
      const res = await request(tls.app).post('/console/api/session').send({ apiKey: m.apiKey });
      expect(res.headers['set-cookie']![0]).toMatch(/; Secure/);
    } finally {
      await tls.close();
    }
  });

  it('refuses a cross-site sign-in (login CSRF): another site’s form or script cannot sign the browser in to its own account', async () => {
    const m = await newMerchant(ctx.deps);
    const own = new URL(ctx.deps.config.PUBLIC_URL).origin;
    const form = (headers: Record<string, string>) =>
      request(ctx.app).post('/console/sign-in').set(headers).type('form').send({ apiKey: m.apiKey });
    const api = (headers: Record<string, string>) => request(ctx.app).post('/console/api/session').set(headers).send({ apiKey: m.apiKey });
    for (const headers of [{ Origin: 'https://evil.example' }, { Origin: 'null' }, { 'Sec-Fetch-Site': 'cross-site' }, { Origin: `${own}.evil.example` }] as Record<string, string>[]) {
      const viaForm = await form(headers);
      expect([viaForm.status, viaForm.headers['set-cookie']]).toEqual([403, undefined]);
      expect(viaForm.text).toMatch(/another site/);
      const viaApi = await api(headers);
      expect([viaApi.status, viaApi.body.error?.code, viaApi.headers['set-cookie']]).toEqual([403, 'FORBIDDEN', undefined]);
    }
    // The console's own page (same origin), and clients that are not browsers (no Origin), sign in.
    const same = await form({ Origin: own, 'Sec-Fetch-Site': 'same-origin' });
    expect([same.status, same.headers.location]).toEqual([303, '/console/payments']);
    expect((await api({ Origin: own })).status).toBe(200);
    expect((await api({})).status).toBe(200);
    // A browser that reached the console at another address than PUBLIC_URL (localhost, a
    // port PUBLIC_URL does not name) sends an Origin naming the host it addressed: that is ours.
    expect((await api({ Origin: 'http://localhost:4999', Host: 'localhost:4999' })).status).toBe(200);
    expect((await api({ Origin: 'http://localhost:4999', Host: 'localhost:5000' })).status).toBe(403);
  });

  it('refuses unknown, malformed, missing and revoked keys the way the API does', async () => {
    const m = await newMerchant(ctx.deps);
    const unknown = await request(ctx.app).post('/console/api/session').send({ apiKey: `sk_test_${'A'.repeat(43)}` });
    expect(unknown.status).toBe(401);
    expect(unknown.body).toMatchObject({ success: false, error: { code: 'UNAUTHORIZED', message: 'API key is not valid' } });
    const malformed = await request(ctx.app).post('/console/api/session').send({ apiKey: 'nope' });
    expect(malformed.status).toBe(401);
    expect(malformed.body.error.message).toMatch(/malformed/);
    const missing = await request(ctx.app).post('/console/api/session').send({});
    expect(missing.status).toBe(400);
    expect(missing.body.error.details).toEqual([{ field: 'apiKey', message: expect.any(String) }]);
    await revokeApiKey(ctx.deps.db, ctx.deps.keys, m.merchantId, m.keyId);
    const revoked = await request(ctx.app).post('/console/api/session').send({ apiKey: m.apiKey });
    expect(revoked.status).toBe(401);
    expect(revoked.body.error.message).toMatch(/revoked/);
  });

  it('ends the session when its key is revoked, after the idle timeout, and on sign-out', async () => {
    const m = await newMerchant(ctx.deps);
    const other = await createApiKey(ctx.deps.db, m.merchantId, { name: 'second', isTestKey: true });
    const a = await signIn({ apiKey: other.apiKeyValue });
    expect((await a.agent.get('/console/api/webhooks')).status).toBe(200);
    await revokeApiKey(ctx.deps.db, ctx.deps.keys, m.merchantId, other.apiKey.id);
    expect((await a.agent.get('/console/api/webhooks')).status).toBe(401);

    const b = await signIn(m);
    clock.advance(59 * 60_000);
    expect((await b.agent.get('/console/api/webhooks')).status).toBe(200); // use moves the idle expiry
    clock.advance(59 * 60_000);
    expect((await b.agent.get('/console/api/webhooks')).status).toBe(200);
    clock.advance(61 * 60_000);
    const expired = await b.agent.get('/console/api/webhooks');
    expect(expired.status).toBe(401);
    expect(expired.body.error.message).toMatch(/expired/);

    const c = await signIn(m);
    const out = await c.agent.delete('/console/api/session').set('X-CSRF-Token', c.csrf);
    expect(out.status).toBe(200);
    expect(out.headers['set-cookie']![0]).toMatch(/console_session=;/);
    expect((await c.agent.get('/console/api/webhooks')).status).toBe(401);
  });

  it('sends pages without a session to the sign-in page', async () => {
    const res = await request(ctx.app).get('/console/webhooks');
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/console/sign-in');
    const page = await request(ctx.app).get('/console/sign-in');
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toMatch(/script-src 'self'/);
  });
});

describe('console webhooks API', () => {
  it('refuses changes without the CSRF token of the session', async () => {
    const m = await newMerchant(ctx.deps);
    const { agent, csrf } = await signIn(m);
    const none = await agent.post('/console/api/webhooks').send(hookBody);
    expect(none.status).toBe(403);
    expect(none.body.error).toMatchObject({ code: 'FORBIDDEN', message: expect.stringMatching(/X-CSRF-Token/) });
    const wrong = await agent.post('/console/api/webhooks').set('X-CSRF-Token', `${csrf.slice(0, -1)}x`).send(hookBody);
    expect(wrong.status).toBe(403);
    const another = await signIn(m);
    expect((await agent.post('/console/api/webhooks').set('X-CSRF-Token', another.csrf).send(hookBody)).status).toBe(403);
    expect((await agent.get('/console/api/webhooks')).body.data).toEqual([]);
  });

  it('creates, lists, reads, changes, rotates and deletes webhooks', async () => {
    const m = await newMerchant(ctx.deps);
    const { agent, csrf } = await signIn(m);
    const created = await agent.post('/console/api/webhooks').set('X-CSRF-Token', csrf).send(hookBody);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ success: true, url: hookBody.url, events: hookBody.events, description: 'Orders', disabledAt: null });
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(Date.parse(created.body.createdAt)).not.toBeNaN();
    const id = created.body.id as string;
    clock.advance(1); // listed oldest first
    await agent.post('/console/api/webhooks').set('X-CSRF-Token', csrf).send({ url: 'https://b.example.com/', events: ['invoice.expired'] });

    const list = await agent.get('/console/api/webhooks');
    expect(list.body.data.map((w: { url: string }) => w.url)).toEqual([hookBody.url, 'https://b.example.com/']);
    const one = await agent.get(`/console/api/webhooks/${id}`);
    expect(one.body.secret).toBe(created.body.secret);

    const patched = await agent.patch(`/console/api/webhooks/${id}`).set('X-CSRF-Token', csrf).send({ events: ['invoice.refunded'], description: null });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ url: hookBody.url, events: ['invoice.refunded'], description: null });

    const rotated = await agent.post(`/console/api/webhooks/${id}/rotate-secret`).set('X-CSRF-Token', csrf);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(created.body.secret);
    expect((await agent.get(`/console/api/webhooks/${id}`)).body.secret).toBe(rotated.body.secret);

    expect((await agent.delete(`/console/api/webhooks/${id}`).set('X-CSRF-Token', csrf)).body).toEqual({ success: true, id, deleted: true });
    expect((await agent.get(`/console/api/webhooks/${id}`)).status).toBe(404);
  });

  it('validates the URL and the events, and refuses private addresses', async () => {
    const m = await newMerchant(ctx.deps);
    const { agent, csrf } = await signIn(m);
    const post = (body: object) => agent.post('/console/api/webhooks').set('X-CSRF-Token', csrf).send(body);
    const bad = await post({ url: 'ftp://x', events: ['invoice.paid'] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].field).toBe('url');
    expect((await post({ url: 'https://a.example.com', events: [] })).body.error.details[0].field).toBe('events');
    expect((await post({ url: 'https://a.example.com', events: ['invoice.exploded'] })).status).toBe(400);
    expect((await post({ url: 'https://a.example.com', events: ['invoice.paid'], extra: 1 })).status).toBe(400);
    const loopback = await post({ url: 'http://127.0.0.1:8080/hook', events: ['invoice.paid'] });
    expect(loopback.status).toBe(400);
    expect(loopback.body.error.message).toMatch(/private, loopback or link-local/);
    expect((await post({ url: 'http://localhost/hook', events: ['invoice.paid'] })).status).toBe(400);
    expect((await post({ url: 'http://[::1]/hook', events: ['invoice.paid'] })).status).toBe(400);
  });

  it('requires HTTPS in production', async () => {
    const prod = await startInvoicingApp({ env: { NODE_ENV: 'production' } });
    try {
      const m = await newMerchant(prod.deps);
      const { agent, csrf } = await signIn(m, prod.app);
      const http = await agent.post('/console/api/webhooks').set('X-CSRF-Token', csrf).send({ url: 'http://hooks.example.com/', events: ['invoice.paid'] });
      expect(http.status).toBe(400);
      expect(http.body.error.message).toBe('url must use https');
      expect((await agent.post('/console/api/webhooks').set('X-CSRF-Token', csrf).send({ url: 'https://hooks.example.com/', events: ['invoice.paid'] })).status).toBe(201);
    } finally {
      await prod.close();
    }
  });

  it('keeps merchants and modes apart', async () => {
    const m = await newMerchant(ctx.deps);
    const test = await signIn(m);
    const live = await signIn({ apiKey: m.liveKey });
    expect(live.res.body.merchant.mode).toBe('live');
    const other = await signIn(await newMerchant(ctx.deps));
    const made = await test.agent.post('/console/api/webhooks').set('X-CSRF-Token', test.csrf).send(hookBody);
    const id = made.body.id as string;
    expect(made.body.mode).toBe('test');
    expect((await live.agent.get('/console/api/webhooks')).body.data).toEqual([]);
    // A webhook receives the events of the mode it was made in: the key's, never a body's choice.
    const liveHook = await live.agent.post('/console/api/webhooks').set('X-CSRF-Token', live.csrf).send(hookBody);
    expect([liveHook.status, liveHook.body.mode]).toEqual([201, 'live']);
    expect((await live.agent.get(`/console/api/webhooks/${liveHook.body.id}`)).body.mode).toBe('live');
    expect((await test.agent.get('/console/api/webhooks')).body.data.map((w: { mode: string }) => w.mode)).toEqual(['test']);
    for (const mode of ['test', 'all', 'live']) {
      const chosen = await live.agent.post('/console/api/webhooks').set('X-CSRF-Token', live.csrf).send({ ...hookBody, mode });
      expect([chosen.status, chosen.body.error?.code]).toEqual([400, 'VALIDATION_ERROR']);
      const changed = await live.agent.patch(`/console/api/webhooks/${liveHook.body.id}`).set('X-CSRF-Token', live.csrf).send({ mode });
      expect([changed.status, changed.body.error?.code]).toEqual([400, 'VALIDATION_ERROR']);
    }
    for (const s of [live, other]) {
      expect((await s.agent.get(`/console/api/webhooks/${id}`)).status).toBe(404);
      expect((await s.agent.get(`/console/api/webhooks/${id}/deliveries`)).status).toBe(404);
      expect((await s.agent.post(`/console/api/webhooks/${id}/rotate-secret`).set('X-CSRF-Token', s.csrf)).status).toBe(404);
      expect((await s.agent.delete(`/console/api/webhooks/${id}`).set('X-CSRF-Token', s.csrf)).status).toBe(404);
    }
  });

  it('sends a test event, lists deliveries with filters, and accepts a resend', async () => {
    const m = await newMerchant(ctx.deps);
    const { agent, csrf } = await signIn(m);
    const id = (await agent.post('/console/api/webhooks').set('X-CSRF-Token', csrf).send(hookBody)).body.id as string;
    const t1 = await agent.post(`/console/api/webhooks/${id}/test`).set('X-CSRF-Token', csrf);
    expect(t1.status).toBe(202);
    expect(t1.body).toMatchObject({ event: 'invoice.paid', status: 'pending', attempts: 0, lastStatusCode: null, lastResponseBody: null });
    const t2 = await agent.post(`/console/api/webhooks/${id}/test`).set('X-CSRF-Token', csrf).send({ event: 'kyc.passed' });
    expect(t2.body.event).toBe('kyc.passed');

    const all = await agent.get(`/console/api/webhooks/${id}/deliveries`);
    expect(all.status).toBe(200);
    expect(all.body.pagination).toEqual({ total: 2, limit: 50, offset: 0, pages: 1 });
    expect(Object.keys(all.body.data[0]).sort()).toEqual(['attempts', 'createdAt', 'event', 'id', 'lastError', 'lastResponseBody', 'lastStatusCode', 'nextAttemptAt', 'status']);
    expect((await agent.get(`/console/api/webhooks/${id}/deliveries?event=kyc.passed`)).body.data.map((d: { id: string }) => d.id)).toEqual([t2.body.id]);
    expect((await agent.get(`/console/api/webhooks/${id}/deliveries?status=succeeded`)).body.data).toEqual([]);
    expect((await agent.get(`/console/api/webhooks/${id}/deliveries?status=lost`)).status).toBe(400);
    // An offset past 1,000,000,000 reached Postgres as out of range for bigint (a 500): refused by the API, shown as the last page by the page.
    const huge = await agent.get(`/console/api/webhooks/${id}/deliveries?offset=99999999999999999999`);
    expect([huge.status, huge.body.error?.details]).toEqual([400, [{ field: 'offset', message: 'must be <= 1000000000' }]]);
    const page = await agent.get(`/console/webhooks/${id}?offset=99999999999999999999`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Newer</a>');

    const resend = await agent.post(`/console/api/deliveries/${t1.body.id}/resend`).set('X-CSRF-Token', csrf);
    expect(resend.status).toBe(202);
    expect(resend.body.id).toBe(t1.body.id);
    expect((await agent.post(`/console/api/deliveries/00000000-0000-4000-8000-000000000000/resend`).set('X-CSRF-Token', csrf)).status).toBe(404);
  });

  it('documents every invoicing event in the OpenAPI webhooks section; invoice.paid exactly as the spec', async () => {
    const doc = (await request(ctx.app).get('/openapi.json')).body;
    expect(Object.keys(doc.webhooks).sort()).toEqual([
      'endpoint.disabled', 'invoice.cancelled', 'invoice.expired', 'invoice.paid', 'invoice.payment_failed', 'invoice.payment_review', 'invoice.refunded', 'kyc.manual_review', 'kyc.passed', 'kyc.rejected',
    ]);
    const paid = doc.webhooks['invoice.paid'].post;
    // The body is a named schema of the document.
    const ref = paid.requestBody.content['application/json'].schema.$ref as string;
    expect(ref).toMatch(/^#\/components\/schemas\/\w+Event$/);
    const body = doc.components.schemas[ref.replace('#/components/schemas/', '')];
    expect(Object.keys(body.properties)).toEqual(['event', 'timestamp', 'livemode', 'id', 'type', 'createdAt', 'source', 'invoice']);
    // The spec's fields, and what issue 28 added: the currency, the mode, how and from which bank it was paid, what was refunded.
    expect(Object.keys(body.properties.invoice.properties)).toEqual([
      'id', 'invoiceNumber', 'amount', 'currency', 'livemode', 'status', 'paymentMethod', 'payerBank', 'refundedAmount', 'paidAt', 'metadata', 'customerEmail', 'customerPhone',
    ]);
    expect(paid.parameters.map((p: { name: string; required: boolean }) => [p.name, p.required])).toEqual(DOCUMENTED_WEBHOOK_HEADERS);
  });
});
