import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { ConfigError } from '@pay/runtime';
import { spawnService } from '@pay/testing';
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

/** What the real entry point (main.ts, its own process) prints when it exits before listening; one that starts is stopped and fails the test. */
async function refusal(env: Record<string, string>): Promise<string> {
  const svc = await spawnService('crypto', env).catch((err: Error) => err);
  if (svc instanceof Error) return svc.message;
  await svc.stop();
  throw new Error(`crypto started with ${Object.keys(env).join(', ')}; it must refuse`);
}

describe('the hot wallet’s key', () => {
  let dir: string;
  let keyFile: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'api-key-'));
    keyFile = path.join(dir, 'payout-key');
    writeFileSync(keyFile, `0x${'cd'.repeat(32)}\n`);
    chmodSync(keyFile, 0o600);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a process that serves the API refuses to start with a payout key, whether it runs the workers or not, saying what to fix', async () => {
    expect(await refusal({ PAYOUT_PRIVATE_KEY_FILE: keyFile })).toMatch(
      /exited with 1 before listening:[\s\S]*PAYOUT_PRIVATE_KEY_FILE is set on a process that serves the API \(SERVE_API is true\): the hot wallet's key belongs to the workers-only process alone\. Unset it here and give it to a process with SERVE_API=false and RUN_WORKERS=true/,
    );
    expect(await refusal({ PAYOUT_PRIVATE_KEY_FILE: keyFile, RUN_WORKERS: 'false' })).toMatch(/PAYOUT_PRIVATE_KEY_FILE is set on a process that serves the API/);
  }, 120_000);

  it('no process takes the key from the environment, the workers-only one included, and the refusal does not print it', async () => {
    const key = `0x${'ef'.repeat(32)}`;
    const output = await refusal({ PAYOUT_PRIVATE_KEY: key, SERVE_API: 'false' });
    expect(output).toMatch(/exited with 1 before listening:[\s\S]*PAYOUT_PRIVATE_KEY is not read: a variable stays in \/proc\/<pid>\/environ[\s\S]*set PAYOUT_PRIVATE_KEY_FILE to that file's path on the workers-only process \(SERVE_API=false\)/);
    expect(output).not.toContain(key.slice(2));
  }, 120_000);

  it('the config a workers-only process loads takes the key file', () => {
    const workers = loadCryptoConfig({ ...process.env, SERVE_API: 'false', PAYOUT_PRIVATE_KEY_FILE: keyFile });
    expect(workers).toMatchObject({ SERVE_API: false, RUN_WORKERS: true, PAYOUT_PRIVATE_KEY_FILE: keyFile });
  });
});
