import request from 'supertest';
import { ConfigError } from '@pay/kit';
import { loadCryptoConfig } from './config';
import { cryptoAppForSuite, registerMerchant } from '../test/test-support';

/**
 * SERVE_API=false: the process that runs withdrawal processing (and so holds the hot wallet's
 * key) answers its probes and metrics, and nothing a merchant could call.
 */
const api = cryptoAppForSuite();
const workers = cryptoAppForSuite({ env: { SERVE_API: 'false' } });

it('answers probes and metrics, and no API, page or docs', async () => {
  const m = await registerMerchant(api.app);
  expect((await request(workers.app).get('/readyz')).status).toBe(200);
  expect((await request(workers.app).get('/healthz')).status).toBe(200);
  expect((await request(workers.app).get('/metrics')).text).toMatch(/^# HELP /m);
  for (const path of ['/api/v1/invoices', '/api/v1/withdrawals/balance', '/docs', '/openapi.json', '/pay/00000000-0000-4000-8000-000000000000']) {
    const res = await request(workers.app).get(path).set('X-Api-Key', m.apiKey);
    expect([path, res.status]).toEqual([path, 404]);
  }
  const registration = await request(workers.app).post('/api/v1/merchants/register').send({ companyName: 'X', email: 'x@example.com', address: '1 Main St' });
  expect(registration.status).toBe(404);
  // The same key on a process that serves the API: it is the route that is missing, not the merchant.
  expect((await request(api.app).get('/api/v1/withdrawals/balance').set('X-Api-Key', m.apiKey)).status).toBe(200);
});

it('refuses a process that would do nothing, saying what to set', () => {
  expect(() => loadCryptoConfig({ ...process.env, SERVE_API: 'false', RUN_WORKERS: 'false' })).toThrow(ConfigError);
  expect(() => loadCryptoConfig({ ...process.env, SERVE_API: 'false', RUN_WORKERS: 'false' })).toThrow(/SERVE_API=false with RUN_WORKERS=false leaves this process nothing to do/);
  expect(loadCryptoConfig({ ...process.env, SERVE_API: 'false', RUN_WORKERS: 'true' }).SERVE_API).toBe(false);
});
