import { gzipSync } from 'node:zlib';
import request from 'supertest';
import { randomUUID } from 'node:crypto';
import { merchantRowsAtRest } from '@pay/accounts/test';
import { registerMerchant, signedRequest, cryptoAppForSuite, testKeyFor, uniqueEmail } from '../../../test/test-support';

const ctx = cryptoAppForSuite();

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('POST /api/v1/merchants/register', () => {
  it('creates the merchant with a live key and an HMAC secret, field by field', async () => {
    const email = uniqueEmail();
    const res = await request(ctx.app)
      .post('/api/v1/merchants/register')
      .send({ companyName: 'Acme Ltd', email, address: '1 Main St', city: 'Riga', country: 'LV', webhookUrl: 'https://acme.test/hooks' });
    expect(res.status).toBe(201);
    expect(res.headers['x-request-id']).toMatch(/^req_/);
    expect(res.body.success).toBe(true);
    expect(typeof res.body.message).toBe('string');
    const d = res.body.data;
    expect(Object.keys(d).sort()).toEqual(['apiKey', 'companyName', 'createdAt', 'email', 'merchantId', 'status']);
    expect(d.merchantId).toMatch(UUID);
    expect(d).toMatchObject({ companyName: 'Acme Ltd', email, status: 'Active' });
    expect(d.createdAt).toMatch(ISO);
    expect(Object.keys(d.apiKey).sort()).toEqual(['apiKey', 'createdAt', 'hmacSecret', 'id', 'name']);
    expect(d.apiKey.id).toMatch(UUID);
    expect(d.apiKey.apiKey).toMatch(/^sk_live_[A-Za-z0-9_-]{43}$/);
    expect(d.apiKey.hmacSecret.length).toBeGreaterThanOrEqual(32);
    expect(d.apiKey.name).toBe('Default key');
  });

  it('stores neither the key nor the secret in plaintext', async () => {
    const m = await registerMerchant(ctx.app);
    const rows = await merchantRowsAtRest(ctx.deps.db, m.merchantId);
    expect(rows).toHaveLength(1);
    const dump = JSON.stringify(rows);
    expect(dump).not.toContain(m.apiKey);
    expect(dump).not.toContain(m.hmacSecret);
  });

  it('refuses a second registration with the same email, whatever its case, with 409', async () => {
    const email = uniqueEmail();
    const first = await request(ctx.app).post('/api/v1/merchants/register').send({ companyName: 'A', email, address: 'x' });
    expect(first.status).toBe(201);
    const again = await request(ctx.app)
      .post('/api/v1/merchants/register')
      .send({ companyName: 'B', email: email.toUpperCase(), address: 'y' });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({
      success: false,
      error: { code: 'EMAIL_ALREADY_REGISTERED', message: expect.stringContaining(email), details: [{ field: 'email', message: 'is already registered' }] },
    });
  });

  it('answers malformed JSON with 400 VALIDATION_ERROR', async () => {
    const res = await request(ctx.app).post('/api/v1/merchants/register').set('Content-Type', 'application/json').send('{"companyName": ');
    expect(res.status).toBe(400);
    expect(res.body.success).toBe(false);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.message).toBe('Request body must be valid JSON');
    const scalar = await request(ctx.app).post('/api/v1/merchants/register').set('Content-Type', 'application/json').send('null');
    expect(scalar.status).toBe(400);
    expect(scalar.body.error.details).toEqual([{ field: '(body)', message: 'must be a JSON object' }]);
  });

  it('refuses a body nested too deep with 400, however deep (no stack overflow)', async () => {
    for (const depth of [33, 5_000, 40_000]) {
      const deep = `{"companyName":${'['.repeat(depth)}${']'.repeat(depth)}}`;
      const res = await request(ctx.app).post('/api/v1/merchants/register').set('Content-Type', 'application/json').send(deep);
      expect(res.status).toBe(400);
      expect(res.body.error.details).toEqual([{ field: '(body)', message: 'must not nest deeper than 32 levels' }]);
    }
  });

  it('names a non-object body (body) whatever JSON it is', async () => {
    for (const body of ['[]', '[{"companyName":"A"}]', '"x"']) {
      const res = await request(ctx.app).post('/api/v1/merchants/register').set('Content-Type', 'application/json').send(body);
      expect(res.status).toBe(400);
      expect(res.body.error.details).toEqual([{ field: '(body)', message: 'must be a JSON object' }]);
    }
  });

  it('parses a vendor +json body like application/json', async () => {
    const res = await request(ctx.app)
      .post('/api/v1/merchants/register')
      .set('Content-Type', 'application/vnd.api+json')
      .send(JSON.stringify({ companyName: 'Vendor', email: uniqueEmail(), address: 'x' }));
    expect(res.status).toBe(201);
    expect(res.body.data.companyName).toBe('Vendor');
  });

  it('refuses a compressed body with 415, saying to send it uncompressed', async () => {
    const res = await request(ctx.app)
      .post('/api/v1/merchants/register')
      .set('Content-Type', 'application/json')
      .set('Content-Encoding', 'gzip')
      .send(gzipSync(JSON.stringify({ companyName: 'Zip', email: uniqueEmail(), address: 'x' })));
    expect(res.status).toBe(415);
    expect(res.body.error).toEqual({ code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Content-Encoding gzip is not accepted; send the body uncompressed' });
  });

  it('refuses NUL characters in any string with 400, naming the field', async () => {
    const res = await request(ctx.app).post('/api/v1/merchants/register').send({ companyName: 'A\u0000B', email: uniqueEmail(), address: 'x' });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ field: 'companyName', message: 'must not contain NUL characters' }]);
  });

  it('refuses numbers that are not finite, in a query (after coercion) and in a body (found by the fuzz suite: ?page=1e309 was a 500)', async () => {
    const m = await registerMerchant(ctx.app);
    const listed = await request(ctx.app).get('/api/v1/withdrawals?page=1e309').set('X-Api-Key', m.apiKey);
    expect(listed.status).toBe(400);
    // Since page has a maximum, ajv refuses the coerced Infinity before the finite check sees it.
    expect(listed.body.error.details).toEqual([{ field: 'page', message: 'must be <= 10000000' }]);
    const invoice = await request(ctx.app).post('/api/v1/invoices').set('X-Api-Key', m.apiKey).set('Content-Type', 'application/json').send('{"amount": 1e309, "currency": "USDT_TRC20"}');
    expect(invoice.status).toBe(400);
    expect(invoice.body.error.details).toEqual([{ field: 'amount', message: 'must be a finite number' }]);
  });

  it('bounds page so that (page - 1) × pageSize stays within 1,000,000,000 on every list (a huge page reached Postgres as out of range for bigint: a 500)', async () => {
    const m = await registerMerchant(ctx.app);
    const lists = ctx.api.operations.filter((op) => op.method === 'get' && 'page' in ((op.query as { properties?: object } | undefined)?.properties ?? {}));
    expect(lists.map((op) => op.path).sort()).toEqual(['/api/v1/api-keys', '/api/v1/invoices', '/api/v1/transactions', '/api/v1/withdrawals']);
    for (const op of lists) {
      for (const page of ['99999999999999999999', '1e21', '10000001']) {
        const res = await request(ctx.app).get(`${op.path}?page=${page}&pageSize=100`).set('X-Api-Key', m.apiKey);
        expect([op.path, page, res.status, res.body.error?.details]).toEqual([op.path, page, 400, [{ field: 'page', message: 'must be <= 10000000' }]]);
      }
      const last = await request(ctx.app).get(`${op.path}?page=10000000&pageSize=100`).set('X-Api-Key', m.apiKey);
      expect([op.path, last.status, last.body.data?.items]).toEqual([op.path, 200, []]);
    }
  });

  it('lists every missing field', async () => {
    const res = await request(ctx.app).post('/api/v1/merchants/register').send({});
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.details).toEqual(
      expect.arrayContaining([
        { field: 'companyName', message: 'is required' },
        { field: 'email', message: 'is required' },
        { field: 'address', message: 'is required' },
      ]),
    );
    expect(res.body.error.details).toHaveLength(3);
  });

  it('names each field of the wrong type or format', async () => {
    const res = await request(ctx.app)
      .post('/api/v1/merchants/register')
      .send({ companyName: 42, email: 'not-an-email', address: ['x'], webhookUrl: 'ftp://x', extra: true });
    expect(res.status).toBe(400);
    const fields = res.body.error.details.map((d: { field: string }) => d.field).sort();
    expect(fields).toEqual(['address', 'companyName', 'email', 'extra', 'webhookUrl']);
    expect(res.body.error.details).toContainEqual({ field: 'companyName', message: 'must be string' });
    expect(res.body.error.details).toContainEqual({ field: 'extra', message: 'is not a known field' });
  });

  it('refuses blank strings', async () => {
    const res = await request(ctx.app).post('/api/v1/merchants/register').send({ companyName: '   ', email: uniqueEmail(), address: '' });
    expect(res.status).toBe(400);
    expect(res.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual(['address', 'companyName']);
  });

  it('refuses a body over the size limit with 413, and a non-JSON body with 415', async () => {
    const big = await request(ctx.app)
      .post('/api/v1/merchants/register')
      .send({ companyName: 'x'.repeat(200 * 1024), email: uniqueEmail(), address: 'a' });
    expect(big.status).toBe(413);
    expect(big.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    const form = await request(ctx.app).post('/api/v1/merchants/register').type('form').send('companyName=x');
    expect(form.status).toBe(415);
    expect(form.body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('replays the first answer for a repeated Idempotency-Key, and refuses it for another body', async () => {
    const key = randomUUID();
    const body = { companyName: 'Idem', email: uniqueEmail(), address: 'x' };
    const first = await request(ctx.app).post('/api/v1/merchants/register').set('Idempotency-Key', key).send(body);
    const second = await request(ctx.app).post('/api/v1/merchants/register').set('Idempotency-Key', key).send(body);
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.body).toEqual(first.body);
    const other = await request(ctx.app)
      .post('/api/v1/merchants/register')
      .set('Idempotency-Key', key)
      .send({ ...body, email: uniqueEmail() });
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('IDEMPOTENCY_CONFLICT');
  });

  it('lets only one of two concurrent requests with the same Idempotency-Key run', async () => {
    const key = randomUUID();
    const body = { companyName: 'Race', email: uniqueEmail(), address: 'x' };
    const results = await Promise.all(
      Array.from({ length: 5 }, () => request(ctx.app).post('/api/v1/merchants/register').set('Idempotency-Key', key).send(body)),
    );
    const created = new Set(results.filter((r) => r.status === 201).map((r) => r.body.data.merchantId));
    expect(created.size).toBe(1);
    for (const r of results) {
      if (r.status !== 201) expect([r.status, r.body.error.code]).toEqual([409, 'IDEMPOTENCY_IN_PROGRESS']);
    }
  });
});

describe('GET /api/v1/merchants/profile', () => {
  it('returns the profile field by field, isTestMode false for a live key', async () => {
    const m = await registerMerchant(ctx.app, { city: 'Oslo' });
    const res = await request(ctx.app).get('/api/v1/merchants/profile').set('X-Api-Key', m.apiKey);
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(Object.keys(res.body.data).sort()).toEqual(
      ['address', 'city', 'companyName', 'country', 'createdAt', 'email', 'feePercent', 'id', 'isTestMode', 'status', 'testWebhookUrl', 'webhookUrl'].sort(),
    );
    expect(res.body.data).toMatchObject({
      id: m.merchantId,
      companyName: 'Acme Ltd',
      email: m.email,
      address: '1 Main St',
      city: 'Oslo',
      country: null,
      webhookUrl: null,
      testWebhookUrl: null,
      status: 'Active',
      feePercent: 1,
      isTestMode: false,
    });
  });

  it('reports isTestMode true for a test key', async () => {
    const m = await testKeyFor(ctx.app, await registerMerchant(ctx.app));
    expect(m.apiKey).toMatch(/^sk_test_/);
    const res = await request(ctx.app).get('/api/v1/merchants/profile').set('X-Api-Key', m.apiKey);
    expect(res.status).toBe(200);
    expect(res.body.data.isTestMode).toBe(true);
  });

  it('refuses a missing, malformed or unknown key with 401', async () => {
    const missing = await request(ctx.app).get('/api/v1/merchants/profile');
    expect(missing.status).toBe(401);
    expect(missing.body.error.code).toBe('UNAUTHORIZED');
    for (const key of ['nope', `sk_live_${'A'.repeat(43)}`]) {
      const res = await request(ctx.app).get('/api/v1/merchants/profile').set('X-Api-Key', key);
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('UNAUTHORIZED');
    }
  });
});

describe('GET /api/v1/merchants/stats', () => {
  it('is all zeros for a new merchant', async () => {
    const m = await registerMerchant(ctx.app);
    const res = await request(ctx.app).get('/api/v1/merchants/stats').set('X-Api-Key', m.apiKey);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: { totalInvoices: 0, paidInvoices: 0, pendingInvoices: 0, expiredInvoices: 0, totalReceived: 0, totalFees: 0, availableBalance: 0 },
    });
  });
});

describe('PUT /api/v1/merchants/webhook', () => {
  it('sets the URL when signed, and the profile shows it', async () => {
    const m = await registerMerchant(ctx.app);
    const res = await signedRequest(ctx.app, m, 'put', '/api/v1/merchants/webhook', { webhookUrl: 'https://shop.test/wh' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: expect.any(String) });
    const profile = await request(ctx.app).get('/api/v1/merchants/profile').set('X-Api-Key', m.apiKey);
    expect(profile.body.data.webhookUrl).toBe('https://shop.test/wh');
  });

  it('sets a testWebhookUrl for test-mode events beside it; absent leaves it, null clears it; checked like webhookUrl', async () => {
    const m = await registerMerchant(ctx.app);
    const profile = async () => (await request(ctx.app).get('/api/v1/merchants/profile').set('X-Api-Key', m.apiKey)).body.data;
    const put = (body: object) => signedRequest(ctx.app, m, 'put', '/api/v1/merchants/webhook', body);
    expect((await put({ webhookUrl: 'https://shop.test/wh', testWebhookUrl: 'https://staging.shop.test/wh' })).status).toBe(200);
    expect(await profile()).toMatchObject({ webhookUrl: 'https://shop.test/wh', testWebhookUrl: 'https://staging.shop.test/wh' });
    expect((await put({ webhookUrl: 'https://shop.test/wh2' })).status).toBe(200);
    expect(await profile()).toMatchObject({ webhookUrl: 'https://shop.test/wh2', testWebhookUrl: 'https://staging.shop.test/wh' });
    expect((await put({ webhookUrl: 'https://shop.test/wh2', testWebhookUrl: null })).status).toBe(200);
    expect(await profile()).toMatchObject({ testWebhookUrl: null });
    const bad = await put({ webhookUrl: 'https://shop.test/wh2', testWebhookUrl: 'http://10.0.0.5/hook' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toEqual([{ field: 'testWebhookUrl', message: 'must not point to a private, loopback or link-local address' }]);
  });

  it('is refused to a test key (live events use the URL), with 403', async () => {
    const m = await testKeyFor(ctx.app, await registerMerchant(ctx.app));
    const res = await signedRequest(ctx.app, m, 'put', '/api/v1/merchants/webhook', { webhookUrl: 'https://shop.test/wh' });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ code: 'FORBIDDEN', message: expect.stringMatching(/live key/) });
  });

  it('answers a signed body that is not JSON with 415, not a signature error', async () => {
    const m = await registerMerchant(ctx.app);
    const res = await signedRequest(ctx.app, m, 'put', '/api/v1/merchants/webhook', { webhookUrl: 'https://shop.test/wh' }).set('Content-Type', 'text/plain');
    expect(res.status).toBe(415);
    expect(res.body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('refuses private, loopback and link-local destinations', async () => {
    const m = await registerMerchant(ctx.app);
    for (const webhookUrl of ['http://169.254.169.254/latest', 'http://localhost:8080/x', 'http://10.0.0.5/hook', 'http://[::1]/']) {
      const res = await signedRequest(ctx.app, m, 'put', '/api/v1/merchants/webhook', { webhookUrl });
      expect(res.status).toBe(400);
      expect(res.body.error.details).toEqual([{ field: 'webhookUrl', message: 'must not point to a private, loopback or link-local address' }]);
    }
    const atRegistration = await request(ctx.app)
      .post('/api/v1/merchants/register')
      .send({ companyName: 'A', email: uniqueEmail(), address: 'x', webhookUrl: 'http://127.0.0.1:9/x' });
    expect(atRegistration.status).toBe(400);
  });

  it('refuses an unsigned request and a bad URL', async () => {
    const m = await registerMerchant(ctx.app);
    const unsigned = await request(ctx.app).put('/api/v1/merchants/webhook').set('X-Api-Key', m.apiKey).send({ webhookUrl: 'https://a.test' });
    expect(unsigned.status).toBe(401);
    expect(unsigned.body.error.code).toBe('INVALID_SIGNATURE');
    const bad = await signedRequest(ctx.app, m, 'put', '/api/v1/merchants/webhook', { webhookUrl: 'not a url' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toEqual([{ field: 'webhookUrl', message: expect.any(String) }]);
  });

  it('refuses a replayed request', async () => {
    const m = await registerMerchant(ctx.app);
    const body = { webhookUrl: 'https://shop.test/once' };
    const now = Math.floor(Date.now() / 1000);
    const first = await signedRequest(ctx.app, m, 'put', '/api/v1/merchants/webhook', body, { now: now * 1000 });
    const replay = await signedRequest(ctx.app, m, 'put', '/api/v1/merchants/webhook', body, { now: now * 1000 });
    expect(first.status).toBe(200);
    expect(replay.status).toBe(401);
    expect(replay.body.error.code).toBe('REPLAYED_REQUEST');
  });
});

describe('service edges', () => {
  it('echoes a client X-Request-Id and answers unknown routes with 404 in the envelope', async () => {
    const res = await request(ctx.app).get('/api/v1/nothing-here').set('X-Request-Id', 'client-abc-123');
    expect(res.status).toBe(404);
    expect(res.headers['x-request-id']).toBe('client-abc-123');
    expect(res.body).toEqual({ success: false, error: { code: 'NOT_FOUND', message: expect.stringContaining('/api/v1/nothing-here') } });
  });

  it('answers a known path with a wrong method 405 and Allow; OPTIONS 204', async () => {
    const res = await request(ctx.app).put('/api/v1/withdrawals');
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('POST, GET, HEAD');
    expect(res.body.error.code).toBe('METHOD_NOT_ALLOWED');
    const options = await request(ctx.app).options('/api/v1/api-keys/00000000-0000-4000-8000-000000000000');
    expect(options.status).toBe(204);
    expect(options.headers.allow).toBe('DELETE');
  });

  it('refuses query parameters a route does not take', async () => {
    const m = await registerMerchant(ctx.app);
    const res = await request(ctx.app).get('/api/v1/merchants/profile?pagesize=5').set('X-Api-Key', m.apiKey);
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ field: 'pagesize', message: 'is not a known field' }]);
  });

  it('serves an OpenAPI 3.1 document with every operation, and a docs page', async () => {
    const doc = await request(ctx.app).get('/openapi.json');
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toBe('3.1.0');
    for (const op of ctx.api.operations) {
      const path = op.path.replace(/:(\w+)/g, '{$1}');
      expect(doc.body.paths[path]?.[op.method]).toBeDefined();
    }
    const register = doc.body.paths['/api/v1/merchants/register'].post;
    expect(register.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/RegisterMerchantRequest' });
    expect(doc.body.components.schemas.RegisterMerchantRequest.required).toEqual(['companyName', 'email', 'address']);
    expect(register.responses['409']).toBeDefined();
    // page and pageSize have defaults: a list asked without them answers, so they are not required.
    const list = doc.body.paths['/api/v1/invoices'].get.parameters as { name: string; required: boolean; schema: { default?: unknown } }[];
    expect(list.map((p) => [p.name, p.required, p.schema.default])).toEqual([['page', false, 1], ['pageSize', false, 20], ['status', false, undefined]]);
    const page = await request(ctx.app).get('/docs');
    expect(page.status).toBe(200);
    expect(page.text).toContain('/openapi.json');
    const asset = await request(ctx.app).get('/docs/assets/swagger-ui-bundle.js');
    expect(asset.status).toBe(200);
  });

  it('reports health and readiness', async () => {
    expect((await request(ctx.app).get('/healthz')).body).toEqual({ status: 'ok', service: 'crypto' });
    const ready = await request(ctx.app).get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body.checks).toEqual({ postgres: 'ok', redis: 'ok' });
  });
});

describe('rate limits', () => {
  const limited = cryptoAppForSuite({ env: { RATE_LIMIT_PER_SECOND: '1', RATE_LIMIT_ANONYMOUS_PER_MINUTE: '2' } });

  it('answer 429 RATE_LIMITED with Retry-After past the per-key limit, counting each key apart', async () => {
    const a = await registerMerchant(ctx.app);
    const b = await registerMerchant(ctx.app);
    // A loaded machine serves a burst over several one-second windows (CI: 10 requests over
    // four): each window passes at most one, whatever the spread, the rest are refused.
    const firstWindow = Math.floor(Date.now() / 1000);
    const burst = await Promise.all(Array.from({ length: 20 }, () => request(limited.app).get('/api/v1/merchants/profile').set('X-Api-Key', a.apiKey)));
    const windows = Math.floor(Date.now() / 1000) - firstWindow + 1;
    const passed = burst.filter((r) => r.status === 200);
    const refused = burst.filter((r) => r.status === 429);
    expect(passed.length).toBeGreaterThanOrEqual(1);
    expect(passed.length).toBeLessThanOrEqual(windows);
    expect(refused).toHaveLength(20 - passed.length);
    expect(refused.length).toBeGreaterThan(0);
    for (const r of refused) {
      expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(r.body.error.code).toBe('RATE_LIMITED');
    }
    expect((await request(limited.app).get('/api/v1/merchants/profile').set('X-Api-Key', b.apiKey)).status).toBe(200);
  });

  it('limit unauthenticated registration per client address', async () => {
    const attempts = [];
    for (let i = 0; i < 4; i++) {
      attempts.push(await request(limited.app).post('/api/v1/merchants/register').send({ companyName: 'R', email: uniqueEmail(), address: 'x' }));
    }
    expect(attempts.some((r) => r.status === 429)).toBe(true);
  });
});
