import { randomUUID } from 'node:crypto';
import request from 'supertest';
import type { Express } from 'express';
import { signedHeaders } from '@pay/auth';
import { closedWithTheFile, eventually, firstConnection } from '@pay/testing';
import { createLogger, systemClock, type Clock, type ManualClock } from '@pay/runtime';
import { connectLiveChain, type EvmChain, type LiveChainOptions } from '../src/chains/evm/live-chain';
import { loadCryptoConfig } from '../src/config';
import { composeCrypto } from '../src/compose';
import { trackTransfers } from '../src/modules/transactions/tracker';
import { transactionStatus } from './transactions/store';

/**
 * The crypto app on the real test database and Redis, built by compose.ts as main.ts builds it. With `live`,
 * the live chain its env configures (EVM_RPC_URL_…) is connected as main.ts connects it. With
 * `background`, the relay, withdrawal worker and tracker run too, on a queue prefix of this
 * test file's own so parallel test files never take each other's jobs.
 */
export function startCryptoApp(opts: CryptoAppOptions = {}) {
  // Closed when the test file ends if the test did not close it.
  return closedWithTheFile(startApp(opts));
}

type CryptoAppOptions = { clock?: Clock; env?: Record<string, string>; background?: boolean; live?: LiveChainOptions };

async function startApp(opts: CryptoAppOptions) {
  const config = loadCryptoConfig({ ...process.env, QUEUE_PREFIX: `test-${randomUUID()}`, ...opts.env });
  const liveOptions = opts.live;
  let live: EvmChain | null = null;
  const crypto = await composeCrypto({
    config,
    logger: createLogger('crypto', config.LOG_LEVEL),
    clock: opts.clock ?? systemClock,
    poolSize: 8,
    isShuttingDown: () => false,
    // Tests connect the EVM chain themselves, with the payout key they hold (main.ts reads it from its file).
    connectLive: async ({ db, clock, logger }) => {
      live = liveOptions ? await connectLiveChain(config, db, clock, logger, liveOptions) : null;
      return live ? [live] : [];
    },
  });
  await firstConnection(crypto.deps.redis);
  const background = opts.background ? crypto.startBackground() : null;
  return { app: crypto.app, api: crypto.api, deps: crypto.deps, background, live: live as EvmChain | null, close: () => crypto.close() };
}

export type CryptoTestApp = Awaited<ReturnType<typeof startCryptoApp>>;

/**
 * The test file's app: started before its tests and closed after them. The returned object
 * is filled in by `beforeAll`, so a file can hold it in a top-level const.
 */
export function cryptoAppForSuite(opts: Parameters<typeof startCryptoApp>[0] = {}): CryptoTestApp {
  const ctx = {} as CryptoTestApp;
  beforeAll(async () => {
    Object.assign(ctx, await startCryptoApp(opts));
  });
  afterAll(async () => {
    await ctx.close?.();
  });
  return ctx;
}

export interface TestMerchant {
  merchantId: string;
  email: string;
  apiKey: string;
  keyId: string;
  hmacSecret: string;
}

export function uniqueEmail(tag = 'm'): string {
  return `${tag}-${randomUUID()}@example.test`;
}

export async function registerMerchant(app: Express, extra: Record<string, unknown> = {}): Promise<TestMerchant> {
  const email = uniqueEmail();
  const res = await request(app)
    .post('/api/v1/merchants/register')
    .send({ companyName: 'Acme Ltd', email, address: '1 Main St', ...extra });
  if (res.status !== 201) throw new Error(`registration failed: ${res.status} ${JSON.stringify(res.body)}`);
  const d = res.body.data;
  return { merchantId: d.merchantId, email: d.email, apiKey: d.apiKey.apiKey, keyId: d.apiKey.id, hmacSecret: d.apiKey.hmacSecret };
}

/** Creates a test-mode key for the merchant (same HMAC secret). */
export async function testKeyFor(app: Express, m: TestMerchant): Promise<TestMerchant> {
  const res = await request(app).post('/api/v1/api-keys').set('X-Api-Key', m.apiKey).send({ name: 'tests', isTestKey: true });
  if (res.status !== 201) throw new Error(`test key failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { ...m, apiKey: res.body.data.apiKey, keyId: res.body.data.id };
}

/**
 * A signed crypto request as a merchant's client would send it. The body is serialised once
 * here, so the signature covers exactly the bytes sent.
 */
export function signedRequest(
  app: Express,
  m: Pick<TestMerchant, 'apiKey' | 'hmacSecret'>,
  method: 'post' | 'put' | 'delete' | 'get',
  path: string,
  body?: unknown,
  opts: { now?: number } = {},
) {
  const raw = body === undefined ? '' : JSON.stringify(body);
  const headers = signedHeaders('crypto', m.hmacSecret, { method: method.toUpperCase(), path: path.split('?')[0]!, body: raw, now: opts.now });
  let req = request(app)[method](path).set('X-Api-Key', m.apiKey);
  for (const [k, v] of Object.entries(headers)) req = req.set(k, v);
  if (body !== undefined) req = req.set('Content-Type', 'application/json').send(raw);
  return req;
}

type Ctx = Awaited<ReturnType<typeof startCryptoApp>>;

/**
 * Gives a test-mode merchant `available` funds the way production does: an invoice, a
 * transfer to it, and enough blocks for confirmation. Returns the net amount credited.
 */
export async function fund(ctx: Ctx, m: TestMerchant, currency: string, amount: number): Promise<void> {
  const inv = await request(ctx.app).post('/api/v1/invoices').set('X-Api-Key', m.apiKey).send({ amount, currency });
  if (inv.status !== 201) throw new Error(`invoice failed: ${JSON.stringify(inv.body)}`);
  const t = await request(ctx.app).post('/api/v1/sandbox/transactions').set('X-Api-Key', m.apiKey).send({ invoiceId: inv.body.data.id, amount });
  if (t.status !== 201) throw new Error(`transfer failed: ${JSON.stringify(t.body)}`);
  const wait = (t.body.data.requiredConfirmations + 1) * ctx.deps.config.SANDBOX_BLOCK_MS;
  const clock = ctx.deps.clock as Partial<ManualClock>;
  if (clock.advance) clock.advance(wait);
  else await new Promise((r) => setTimeout(r, wait));
  // A background tracker may hold the row for a moment; ours then skips it, so retry.
  await eventually(async () => {
    await trackTransfers(ctx.deps);
    const status = await transactionStatus(ctx.deps.db, t.body.data.id);
    if (status !== 'Confirmed') throw new Error(`transfer not confirmed: ${status}`);
  });
}

/** A merchant with a test key, ready for sandbox work. */
export async function testMerchant(app: Express): Promise<TestMerchant> {
  return testKeyFor(app, await registerMerchant(app));
}
