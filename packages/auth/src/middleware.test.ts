import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { Redis } from 'ioredis';
import request from 'supertest';
import { ApiError } from '@pay/schemas';
import { generateApiKey } from './api-keys';
import { jsonWithRawBody, requireApiKey, requireSignature, type KeyResolver, type ResolvedKey } from './middleware';
import { ReplayGuard } from './replay-guard';
import { generateHmacSecret } from './secret-box';
import { signedHeaders, signRequest, type SigningStyle } from './signing';
import { testRedis } from '../test/test-support';

const { redis, prefix, close } = testRedis('middleware');
afterAll(close);

/** Stands in for a service's database: the resolver is an interface, its DB implementation is tested with the DB. */
class InMemoryKeys implements KeyResolver {
  readonly lookups: string[] = [];
  private readonly byHash = new Map<string, ResolvedKey>();

  add(key: Omit<ResolvedKey, 'hmacSecret'> & { mode?: 'live' | 'test' }): string {
    const generated = generateApiKey(key.mode ?? (key.isTestKey ? 'test' : 'live'));
    this.byHash.set(generated.hash, { ...key, hmacSecret: async () => secrets.get(key.merchantId)! });
    return generated.value;
  }

  async resolve(keyHash: string): Promise<ResolvedKey | null> {
    this.lookups.push(keyHash);
    return this.byHash.get(keyHash) ?? null;
  }
}

const keys = new InMemoryKeys();
const secrets = new Map<string, string>([
  ['m_active', generateHmacSecret()],
  ['m_suspended', generateHmacSecret()],
]);
const SECRET = secrets.get('m_active')!;
const base = { merchantId: 'm_active', revokedAt: null, merchantActive: true };
const LIVE_KEY = keys.add({ ...base, keyId: 'k_live', isTestKey: false });
const SECOND_LIVE_KEY = keys.add({ ...base, keyId: 'k_live_2', isTestKey: false });
const TEST_KEY = keys.add({ ...base, keyId: 'k_test', isTestKey: true });
const REVOKED_KEY = keys.add({ ...base, keyId: 'k_revoked', isTestKey: false, revokedAt: new Date('2024-01-01') });
const SUSPENDED_KEY = keys.add({ keyId: 'k_susp', merchantId: 'm_suspended', isTestKey: false, revokedAt: null, merchantActive: false });
const UNKNOWN_KEY = generateApiKey('live').value;

// Every test signs at its own timestamp, so identical requests in different tests are not replays of each other.
// Whole seconds, so the crypto style's truncation to seconds does not move the window edges.
let nowMs = Math.floor(Date.now() / 1000) * 1000;
beforeEach(() => {
  nowMs += 10_000;
});

const errorsSeen: unknown[] = [];
const renderError: ErrorRequestHandler = (err, _req, res, _next) => {
  errorsSeen.push(err);
  res.status(err.status ?? 500).json({ error: { code: err.code ?? 'INTERNAL', message: err.message } });
};

function signatureGuards(style: SigningStyle): RequestHandler[] {
  return [
    requireApiKey(keys),
    requireSignature({
      style,
      replayGuard: new ReplayGuard(redis, { windowMs: 300_000, prefix: `${prefix}${style}:` }),
      now: () => nowMs,
    }),
  ];
}

const echo: RequestHandler = (req, res) => {
  res.json({ auth: req.auth, body: req.body ?? null, rawBody: req.rawBody?.toString('utf8') ?? null });
};

const app = express();
app.use(jsonWithRawBody({ limit: '1kb' }));
app.get('/key-only', requireApiKey(keys), echo);
app.post('/api/v1/withdrawals', ...signatureGuards('crypto'), echo);
app.post('/api/v1/refunds', ...signatureGuards('crypto'), echo);
app.get('/api/v1/balances', ...signatureGuards('crypto'), echo);
app.post('/v2/invoices', ...signatureGuards('v2'), echo);
app.get('/v2/invoices', ...signatureGuards('v2'), echo);
app.post('/unauthenticated-signature', signatureGuards('crypto')[1]!, echo);
app.post('/raw', echo);
const mounted = express.Router();
mounted.post('/payouts', ...signatureGuards('crypto'), echo);
app.use('/api/v9', mounted);
app.use(renderError);

interface Call {
  style?: SigningStyle;
  method?: 'get' | 'post';
  path: string;
  /** The exact body text sent; omitted for no body. */
  body?: string;
  apiKey?: string;
  secret?: string;
  /** What the signature is computed over, when a test wants it to differ from what is sent. */
  signPath?: string;
  signBody?: string;
  timestampMs?: number;
  headers?: Record<string, string>;
}

function send(call: Call) {
  const style = call.style ?? 'crypto';
  const method = call.method ?? (call.body === undefined ? 'get' : 'post');
  const headers = signedHeaders(style, call.secret ?? SECRET, {
    method: method.toUpperCase(),
    path: call.signPath ?? call.path,
    body: call.signBody ?? call.body ?? '',
    now: call.timestampMs ?? nowMs,
  });
  let req = request(app)[method](call.path).set('X-Api-Key', call.apiKey ?? LIVE_KEY);
  for (const [name, value] of Object.entries({ ...headers, ...call.headers })) req = req.set(name, value);
  if (call.body !== undefined) req = req.set('Content-Type', 'application/json').send(call.body);
  return req;
}

function expectError(res: request.Response, status: number, code: string, message?: RegExp | string) {
  expect({ status: res.status, code: res.body.error?.code }).toEqual({ status, code });
  if (message !== undefined) expect(res.body.error.message).toMatch(message);
}

const AMOUNT = '{"amount":100}';

describe('requireApiKey', () => {
  it('refuses a request without X-Api-Key', async () => {
    const res = await request(app).get('/key-only');
    expectError(res, 401, 'UNAUTHORIZED', 'Missing X-Api-Key header');
  });

  it('refuses a malformed key without looking it up', async () => {
    const before = keys.lookups.length;
    const res = await request(app).get('/key-only').set('X-Api-Key', `${LIVE_KEY}x`);
    expectError(res, 401, 'UNAUTHORIZED', /malformed/);
    expect(keys.lookups.length).toBe(before);
  });

  it('refuses an unknown key', async () => {
    const res = await request(app).get('/key-only').set('X-Api-Key', UNKNOWN_KEY);
    expectError(res, 401, 'UNAUTHORIZED', 'API key is not valid');
  });

  it('refuses a revoked key', async () => {
    const res = await request(app).get('/key-only').set('X-Api-Key', REVOKED_KEY);
    expectError(res, 401, 'UNAUTHORIZED', 'API key has been revoked');
  });

  it('refuses a key of a suspended merchant', async () => {
    const res = await request(app).get('/key-only').set('X-Api-Key', SUSPENDED_KEY);
    expectError(res, 403, 'FORBIDDEN', /suspended/);
  });

  it('sets req.auth for a live key, looked up by its SHA-256', async () => {
    const res = await request(app).get('/key-only').set('X-Api-Key', LIVE_KEY);
    expect(res.status).toBe(200);
    expect(res.body.auth).toEqual({ keyId: 'k_live', merchantId: 'm_active', isTestMode: false });
    expect(keys.lookups.at(-1)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('marks a test key as test mode', async () => {
    const res = await request(app).get('/key-only').set('x-api-key', TEST_KEY);
    expect(res.status).toBe(200);
    expect(res.body.auth).toEqual({ keyId: 'k_test', merchantId: 'm_active', isTestMode: true });
  });

  it('refuses before checking the signature', async () => {
    const res = await send({ path: '/api/v1/withdrawals', body: AMOUNT, apiKey: REVOKED_KEY });
    expectError(res, 401, 'UNAUTHORIZED', 'API key has been revoked');
  });
});

describe('requireSignature, crypto style', () => {
  it('accepts a correctly signed POST and passes the raw body on', async () => {
    const res = await send({ path: '/api/v1/withdrawals', body: AMOUNT });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ auth: { keyId: 'k_live', merchantId: 'm_active', isTestMode: false }, body: { amount: 100 }, rawBody: AMOUNT });
  });

  it('accepts a signature computed independently of the library', async () => {
    const { createHmac } = await import('node:crypto');
    const timestamp = String(Math.floor(nowMs / 1000));
    const signature = createHmac('sha256', SECRET).update(`${timestamp}.POST./api/v1/withdrawals${AMOUNT}`).digest('base64');
    const res = await request(app)
      .post('/api/v1/withdrawals')
      .set({ 'X-Api-Key': LIVE_KEY, 'X-Timestamp': timestamp, 'X-Signature': signature, 'Content-Type': 'application/json' })
      .send(AMOUNT);
    expect(res.status).toBe(200);
  });

  it('accepts a GET without a body (signed over an empty body)', async () => {
    const res = await send({ path: '/api/v1/balances' });
    expect(res.status).toBe(200);
    expect(res.body.rawBody).toBe('');
  });

  it('refuses a request without X-Signature', async () => {
    const res = await send({ path: '/api/v1/balances', headers: { 'X-Signature': '' } });
    expectError(res, 401, 'INVALID_SIGNATURE', 'Missing X-Signature header');
  });

  it('refuses a request without X-Timestamp', async () => {
    const res = await send({ path: '/api/v1/balances', headers: { 'X-Timestamp': '' } });
    expectError(res, 401, 'INVALID_SIGNATURE', 'Missing X-Timestamp header');
  });

  it('names both headers when neither is sent', async () => {
    const res = await request(app).get('/api/v1/balances').set('X-Api-Key', LIVE_KEY);
    expectError(res, 401, 'INVALID_SIGNATURE', 'Missing X-Timestamp and X-Signature headers');
  });

  it('refuses a signature made with another secret, explaining how to sign', async () => {
    const res = await send({ path: '/api/v1/withdrawals', body: AMOUNT, secret: generateHmacSecret() });
    expectError(res, 401, 'INVALID_SIGNATURE', /does not match.*X-Signature must be the Base64 HMAC-SHA256/);
  });

  it('refuses a body changed after signing', async () => {
    const res = await send({ path: '/api/v1/withdrawals', body: '{"amount":100000}', signBody: AMOUNT });
    expectError(res, 401, 'INVALID_SIGNATURE');
  });

  it('signs the bytes sent, not the parsed JSON', async () => {
    const spaced = await send({ path: '/api/v1/withdrawals', body: '{ "amount": 100 }', signBody: AMOUNT });
    expectError(spaced, 401, 'INVALID_SIGNATURE');
    const asSent = await send({ path: '/api/v1/withdrawals', body: '{ "amount": 100 }' });
    expect(asSent.status).toBe(200);
    expect(asSent.body.rawBody).toBe('{ "amount": 100 }');
  });

  it('refuses a request sent to another path than the one signed', async () => {
    const res = await send({ path: '/api/v1/refunds', body: AMOUNT, signPath: '/api/v1/withdrawals' });
    expectError(res, 401, 'INVALID_SIGNATURE');
  });

  it('leaves the query string out of the signed path', async () => {
    const res = await send({ path: '/api/v1/balances?currency=BTC&page=2', signPath: '/api/v1/balances' });
    expect(res.status).toBe(200);
  });

  it('signs the full path of a router mounted under a prefix', async () => {
    const res = await send({ path: '/api/v9/payouts', body: AMOUNT });
    expect(res.status).toBe(200);
    const withoutMount = await send({ path: '/api/v9/payouts', body: AMOUNT, signPath: '/payouts' });
    expectError(withoutMount, 401, 'INVALID_SIGNATURE');
  });

  it('accepts a timestamp 300 s old', async () => {
    const res = await send({ path: '/api/v1/balances', timestampMs: nowMs - 300_000 });
    expect(res.status).toBe(200);
  });

  it('refuses a stale timestamp', async () => {
    const res = await send({ path: '/api/v1/balances', timestampMs: nowMs - 301_000 });
    expectError(res, 401, 'TIMESTAMP_OUT_OF_WINDOW', /in seconds, within 300 s of server time; it is 301 s old/);
  });

  it('refuses a timestamp in the future', async () => {
    const res = await send({ path: '/api/v1/balances', timestampMs: nowMs + 302_000 });
    expectError(res, 401, 'TIMESTAMP_OUT_OF_WINDOW', /in the future/);
  });

  it('tells a client sending milliseconds that seconds are expected', async () => {
    const timestamp = String(nowMs);
    const signature = signRequest('crypto', SECRET, { timestamp, method: 'GET', path: '/api/v1/balances' });
    const res = await request(app)
      .get('/api/v1/balances')
      .set({ 'X-Api-Key': LIVE_KEY, 'X-Timestamp': timestamp, 'X-Signature': signature });
    expectError(res, 401, 'TIMESTAMP_OUT_OF_WINDOW', /X-Timestamp must be an integer Unix time in seconds.*looks like milliseconds/);
  });

  it('refuses a timestamp that is not an integer', async () => {
    const res = await send({ path: '/api/v1/balances', headers: { 'X-Timestamp': `${Math.floor(nowMs / 1000)}.5` } });
    expectError(res, 401, 'TIMESTAMP_OUT_OF_WINDOW', /not an integer/);
  });

  it('refuses the second identical request as a replay', async () => {
    const first = send({ path: '/api/v1/withdrawals', body: AMOUNT });
    const headers = signedHeaders('crypto', SECRET, { method: 'POST', path: '/api/v1/withdrawals', body: AMOUNT, now: nowMs });
    expect((await first).status).toBe(200);
    const again = await request(app)
      .post('/api/v1/withdrawals')
      .set({ 'X-Api-Key': LIVE_KEY, 'Content-Type': 'application/json', ...headers })
      .send(AMOUNT);
    expectError(again, 401, 'REPLAYED_REQUEST', /already used.*fresh timestamp/);
  });

  it('refuses a replay through another API key of the same merchant', async () => {
    expect((await send({ path: '/api/v1/withdrawals', body: AMOUNT })).status).toBe(200);
    const viaOtherKey = await send({ path: '/api/v1/withdrawals', body: AMOUNT, apiKey: SECOND_LIVE_KEY });
    // Never "accepted" of a request that may have been refused: the signature was used, that is all.
    expectError(viaOtherKey, 401, 'REPLAYED_REQUEST', /^This signature was already used: .*whichever of the merchant's API keys sent it/);
  });

  it('refuses a replay with a different query string', async () => {
    expect((await send({ path: '/api/v1/balances?page=1', signPath: '/api/v1/balances' })).status).toBe(200);
    const res = await send({ path: '/api/v1/balances?page=2', signPath: '/api/v1/balances' });
    expectError(res, 401, 'REPLAYED_REQUEST');
  });

  it('does not let a forged request burn a genuine signature', async () => {
    const headers = signedHeaders('crypto', SECRET, { method: 'POST', path: '/api/v1/withdrawals', body: AMOUNT, now: nowMs });
    const forged = await request(app)
      .post('/api/v1/withdrawals')
      .set({ 'X-Api-Key': LIVE_KEY, 'Content-Type': 'application/json', ...headers })
      .send('{"amount":999999}');
    expectError(forged, 401, 'INVALID_SIGNATURE');
    const genuine = await request(app)
      .post('/api/v1/withdrawals')
      .set({ 'X-Api-Key': LIVE_KEY, 'Content-Type': 'application/json', ...headers })
      .send(AMOUNT);
    expect(genuine.status).toBe(200);
  });

  it('records the claim in Redis under the prefix, keyed by merchant (its hash tag: the slot of its rate counts) and signature, for twice the window', async () => {
    const headers = signedHeaders('crypto', SECRET, { method: 'GET', path: '/api/v1/balances', now: nowMs });
    expect((await send({ path: '/api/v1/balances' })).status).toBe(200);
    const ttl = await redis.pttl(`${prefix}crypto:{m_active}:${headers['X-Signature']}`);
    expect(ttl).toBeGreaterThan(595_000);
  });
});

describe('requireSignature, invoicing v2 style', () => {
  it('accepts a correctly signed POST (milliseconds, hex)', async () => {
    const res = await send({ style: 'v2', path: '/v2/invoices', body: AMOUNT });
    expect(res.status).toBe(200);
    expect(res.body.body).toEqual({ amount: 100 });
  });

  it('accepts a GET without a body', async () => {
    const res = await send({ style: 'v2', path: '/v2/invoices?status=paid', signPath: '/v2/invoices' });
    expect(res.status).toBe(200);
  });

  it('accepts a signature computed independently of the library', async () => {
    const { createHmac } = await import('node:crypto');
    const timestamp = String(nowMs);
    const signature = createHmac('sha256', SECRET).update(`${timestamp}.POST./v2/invoices${AMOUNT}`).digest('hex');
    const res = await request(app)
      .post('/v2/invoices')
      .set({ 'x-api-key': LIVE_KEY, 'x-timestamp': timestamp, 'x-signature': signature, 'content-type': 'application/json' })
      .send(AMOUNT);
    expect(res.status).toBe(200);
  });

  it('refuses a Base64 signature', async () => {
    const timestamp = String(nowMs);
    const signature = signRequest('crypto', SECRET, { timestamp, method: 'POST', path: '/v2/invoices', body: AMOUNT });
    const res = await request(app)
      .post('/v2/invoices')
      .set({ 'x-api-key': LIVE_KEY, 'x-timestamp': timestamp, 'x-signature': signature, 'content-type': 'application/json' })
      .send(AMOUNT);
    expectError(res, 401, 'INVALID_SIGNATURE', /x-signature must be the lower-case hex HMAC-SHA256/);
  });

  it('tells a client sending seconds that milliseconds are expected', async () => {
    const timestamp = String(Math.floor(nowMs / 1000));
    const signature = signRequest('v2', SECRET, { timestamp, method: 'GET', path: '/v2/invoices' });
    const res = await request(app).get('/v2/invoices').set({ 'x-api-key': LIVE_KEY, 'x-timestamp': timestamp, 'x-signature': signature });
    expectError(res, 401, 'TIMESTAMP_OUT_OF_WINDOW', /x-timestamp must be an integer Unix time in milliseconds.*looks like seconds/);
  });

  it('refuses a stale timestamp', async () => {
    const res = await send({ style: 'v2', path: '/v2/invoices', timestampMs: nowMs - 300_001 });
    expectError(res, 401, 'TIMESTAMP_OUT_OF_WINDOW', /old/);
  });

  it('refuses a replay', async () => {
    expect((await send({ style: 'v2', path: '/v2/invoices', body: AMOUNT })).status).toBe(200);
    expectError(await send({ style: 'v2', path: '/v2/invoices', body: AMOUNT }), 401, 'REPLAYED_REQUEST');
  });

  it('refuses a missing x-signature', async () => {
    const res = await send({ style: 'v2', path: '/v2/invoices', headers: { 'x-signature': '' } });
    expectError(res, 401, 'INVALID_SIGNATURE', 'Missing x-signature header');
  });
});

describe('errors reach the error handler', () => {
  it('as ApiError instances carrying code and status', async () => {
    errorsSeen.length = 0;
    await send({ path: '/api/v1/withdrawals', body: AMOUNT, secret: 'hs_wrong' });
    expect(errorsSeen).toHaveLength(1);
    expect(errorsSeen[0]).toBeInstanceOf(ApiError);
    expect(errorsSeen[0]).toMatchObject({ code: 'INVALID_SIGNATURE', status: 401 });
  });

  it('as a plain error (a 500) when requireSignature is mounted without requireApiKey', async () => {
    const res = await send({ path: '/unauthenticated-signature', body: AMOUNT });
    expect(res.status).toBe(500);
    expect(res.body.error.message).toMatch(/after requireApiKey/);
  });

  it('as 503 SERVICE_UNAVAILABLE when Redis fails the claim, the cause and request told to onUnavailable', async () => {
    // Nothing listens on port 1; without the offline queue a command fails at once.
    const away = new Redis('redis://127.0.0.1:1', { enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => null });
    away.on('error', () => undefined);
    const told: { message: string; path: string }[] = [];
    const guarded = express();
    guarded.use(jsonWithRawBody({ limit: '1kb' }));
    guarded.post('/api/v1/withdrawals', requireApiKey(keys), requireSignature({ style: 'crypto', replayGuard: new ReplayGuard(away, { windowMs: 300_000, prefix }), now: () => nowMs, onUnavailable: (err, req) => told.push({ message: (err as Error).message, path: req.path }) }), echo);
    guarded.use(renderError);
    const headers = signedHeaders('crypto', SECRET, { method: 'POST', path: '/api/v1/withdrawals', body: AMOUNT, now: nowMs });
    const res = await request(guarded).post('/api/v1/withdrawals').set('X-Api-Key', LIVE_KEY).set(headers).set('Content-Type', 'application/json').send(AMOUNT);
    // Closed, its failed connection attempt included, before the test ends.
    if (away.status !== 'end') await new Promise((resolve) => (away.once('end', resolve), away.disconnect()));
    expectError(res, 503, 'SERVICE_UNAVAILABLE', /cannot be checked for replay/);
    expect(told).toEqual([{ message: expect.stringMatching(/Stream isn't writeable|Connection is closed|ECONNREFUSED/), path: '/api/v1/withdrawals' }]);
  });

  it('at construction when the replay guard forgets sooner than signatures expire', () => {
    expect(() =>
      requireSignature({
        style: 'crypto',
        replayGuard: new ReplayGuard(redis, { windowMs: 60_000, prefix }),
      }),
    ).toThrow(/at least 300000 ms/);
  });
});

describe('jsonWithRawBody', () => {
  it('keeps the exact bytes received next to the parsed body', async () => {
    const text = '{"b":1,  "a":[1.50]}';
    const res = await request(app).post('/raw').set('Content-Type', 'application/json').send(text);
    expect(res.body).toEqual({ body: { b: 1, a: [1.5] }, rawBody: text });
  });

  it('sets an empty buffer when there is no body', async () => {
    const res = await request(app).post('/raw');
    expect(res.body.rawBody).toBe('');
  });

  it('sets an empty buffer when the body is not JSON', async () => {
    const res = await request(app).post('/raw').set('Content-Type', 'text/plain').send('amount=100');
    expect(res.body).toEqual({ body: null, rawBody: '' });
  });

  it('passes parser errors on to the error handler', async () => {
    const invalid = await request(app).post('/raw').set('Content-Type', 'application/json').send('{"amount":');
    expect(invalid.status).toBe(400);
    const tooLarge = await request(app)
      .post('/raw')
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ pad: 'x'.repeat(2048) }));
    expect(tooLarge.status).toBe(413);
  });
});
