import request from 'supertest';
import { REQUEST_REDIS_TIMEOUT_MS } from '@pay/runtime';
import { cryptoAppForSuite, registerMerchant, signedRequest } from '../test/test-support';

// A dependency unreachable (nothing listens on port 1): the API must answer promptly, in
// the error envelope, and never hang.
const PROMPT_MS = REQUEST_REDIS_TIMEOUT_MS * 4;

async function timed<T>(run: () => Promise<T>): Promise<{ res: T; ms: number }> {
  const started = Date.now();
  const res = await run();
  return { res, ms: Date.now() - started };
}

describe('with Redis unreachable', () => {
  const ctx = cryptoAppForSuite({ env: { REDIS_URL: 'redis://127.0.0.1:1' } });

  it('serves key and anonymous requests (the rate limiter lets them through), each within its timeout', async () => {
    const { res: registered, ms } = await timed(() => registerMerchant(ctx.app));
    expect(ms).toBeLessThan(PROMPT_MS);
    const profile = await timed(() => request(ctx.app).get('/api/v1/merchants/profile').set('X-Api-Key', registered.apiKey));
    expect(profile.res.status).toBe(200);
    expect(profile.ms).toBeLessThan(PROMPT_MS);
  });

  it('refuses signed requests with 503 and Retry-After, since their replay cannot be checked', async () => {
    const m = await registerMerchant(ctx.app);
    const { res, ms } = await timed(() => signedRequest(ctx.app, m, 'put', '/api/v1/merchants/webhook', { webhookUrl: 'https://example.com/hook' }));
    expect(ms).toBeLessThan(PROMPT_MS);
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.body.error.code).toBe('SERVICE_UNAVAILABLE');
    // Nothing was changed by the refused request.
    const profile = await request(ctx.app).get('/api/v1/merchants/profile').set('X-Api-Key', m.apiKey);
    expect(profile.body.data.webhookUrl).toBeNull();
  });

  it('reports Redis not ready with the reason, at once', async () => {
    const { res, ms } = await timed(() => request(ctx.app).get('/readyz'));
    expect(ms).toBeLessThan(PROMPT_MS);
    expect(res.status).toBe(503);
    expect(res.body.checks.postgres).toBe('ok');
    expect(res.body.checks.redis).toMatch(/^failing: (connecting|reconnecting).*ECONNREFUSED/);
  });
});

describe('with PostgreSQL unreachable', () => {
  const ctx = cryptoAppForSuite({ env: { DATABASE_URL: 'postgresql://root@127.0.0.1:1/payments' } });

  it('answers 503 SERVICE_UNAVAILABLE with Retry-After, not 500, on anonymous and key routes', async () => {
    const register = await request(ctx.app).post('/api/v1/merchants/register').send({ companyName: 'Acme', email: 'down@example.com', address: 'x' });
    const profile = await request(ctx.app).get('/api/v1/merchants/profile').set('X-Api-Key', `sk_test_${'a'.repeat(43)}`);
    for (const res of [register, profile]) {
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe('1');
      expect(res.body).toEqual({
        success: false,
        error: { code: 'SERVICE_UNAVAILABLE', message: 'The service cannot reach its database right now; retry shortly' },
      });
    }
  });

  it('reports Postgres not ready', async () => {
    const res = await request(ctx.app).get('/readyz');
    expect(res.status).toBe(503);
    expect(res.body.checks.postgres).toMatch(/^failing: /);
    expect(res.body.checks.redis).toBe('ok');
  });
});
