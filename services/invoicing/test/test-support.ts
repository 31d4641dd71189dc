import request from 'supertest';
import type { Express } from 'express';
import { createApiKey, registerMerchant } from '@pay/accounts';
import { createAccountsDb } from '@pay/accounts/src/testing';
import { SecretBox, signedHeaders } from '@pay/auth';
import type { Transactions } from '@pay/db';
import { apiClient, closedWithTheFile, firstConnection, killHard, spawnBuiltService, startChaosStack, type ChaosStack, type RunningService } from '@pay/testing';
import type { Clock, Logger } from '@pay/runtime';
import { randomUUID } from 'node:crypto';
import { TBankEmulator, type EmulatorOptions } from '@pay/tbank-emulator';
import { loadInvoicingConfig } from '../src/load-config';
import { composeInvoicing } from '../src/compose';
import { SandboxProvider } from '../src/payments/sandbox';
import type { InvoicingDeps } from '../src/deps';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { abandonClaim } from '@pay/http/test';

export interface TestAppOptions {
  clock?: Clock;
  env?: Record<string, string>;
  /** Run expiry, the refund reconciler, housekeeping, the outbox relay and the receipt, KYC and batch workers, as RUN_WORKERS does. */
  background?: boolean;
  /** Give live mode the sandbox too (main.ts connects none), to test that live and test data stay apart. */
  liveSandbox?: boolean;
  logger?: Logger;
  poolSize?: number;
}

/**
 * The invoicing app on the real test database and Redis, as main.ts builds it; closed when the
 * test file ends if the test did not close it (@pay/testing closedWithTheFile).
 */
export function startInvoicingApp(opts: TestAppOptions = {}) {
  return closedWithTheFile(startApp(opts));
}

async function startApp(opts: TestAppOptions) {
  // Receipt files of a test app go to a directory of its own, never into the work tree.
  const receiptsDir = mkdtempSync(join(tmpdir(), 'pay-receipts-'));
  const config = loadInvoicingConfig({ ...process.env, RECEIPTS_DIR: receiptsDir, ...opts.env });
  const invoicing = composeInvoicing(config, {
    logger: opts.logger,
    clock: opts.clock,
    poolSize: opts.poolSize ?? 4,
    // The configured providers (env: LIVE_PAYMENT_PROVIDER=tbank at an emulator, say), else the sandbox.
    providers: (configured) => {
      const sandbox = configured.test instanceof SandboxProvider ? configured.test : new SandboxProvider(config.PUBLIC_URL);
      return { test: configured.test, live: configured.live ?? (opts.liveSandbox ? sandbox : null) };
    },
  });
  await firstConnection(invoicing.deps.redis);
  const background = opts.background ? invoicing.startBackground() : null;
  let closing: string | null = null;
  return {
    app: invoicing.app,
    apis: invoicing.apis,
    deps: invoicing.deps,
    background,
    /** What close() is waiting for, while it runs: a close that overruns its hook says which (invoicingAppForSuite). */
    closingStep: () => (closing === 'the background' && background ? `the background: ${background.stopping().join(', ')}` : closing),
    async close() {
      closing = 'the background';
      await background?.stop();
      for (const [name, close] of invoicing.closers) {
        closing = name;
        await close();
      }
      closing = null;
      rmSync(receiptsDir, { recursive: true, force: true });
    },
  };
}

export type InvoicingTestApp = Awaited<ReturnType<typeof startInvoicingApp>>;

/**
 * The app listening on a loopback port, with PUBLIC_URL set to it first, so the links it
 * hands out (paymentLink, qrPayload) lead to this very listener: for browser tests.
 */
export function startListeningInvoicingApp(opts: TestAppOptions = {}) {
  return closedWithTheFile(startListening(opts));
}

async function startListening(opts: TestAppOptions) {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const ctx = await startInvoicingApp({ ...opts, env: { PUBLIC_URL: base, ...opts.env } });
  server.on('request', ctx.app);
  return {
    ...ctx,
    base,
    async close() {
      await new Promise((r) => server.close(r));
      await ctx.close();
    },
  };
}

/**
 * The service as scripts/stack.sh runs it (its bundle under plain node, background work on),
 * for the page tests, which must test what ships. `app` and `base` are its URL (supertest
 * takes either); `deps` are this process's own (no background) on the same database and
 * Redis, to set up and check what the pages did. Receipt files go to a folder of its own.
 */
export function startBuiltInvoicing(opts: { env?: Record<string, string> } = {}) {
  return closedWithTheFile(startBuilt(opts));
}

async function startBuilt(opts: { env?: Record<string, string> }) {
  const receiptsDir = mkdtempSync(join(tmpdir(), 'pay-receipts-'));
  const env = { RECEIPTS_DIR: receiptsDir, ...opts.env };
  const [service, local] = await Promise.all([spawnBuiltService('invoicing', env), startInvoicingApp({ env })]);
  return {
    app: service.url,
    base: service.url,
    deps: local.deps,
    service: service as RunningService,
    async close() {
      await service.stop();
      await local.close();
      rmSync(receiptsDir, { recursive: true, force: true });
    },
  };
}

/** The test file's app, started before its tests and closed after them (filled in by beforeAll). */
export function invoicingAppForSuite(opts: Parameters<typeof startInvoicingApp>[0] = {}): InvoicingTestApp {
  const ctx = {} as InvoicingTestApp;
  beforeAll(async () => {
    Object.assign(ctx, await startInvoicingApp(opts));
  });
  // Closing the background waits for jobs in flight (a KYC check takes a minute and more on a
  // loaded 2-core machine), beyond a file's own test timeout.
  afterAll(async () => {
    // A close that runs long says, every minute, what it waits for (it named the batch e-mail
    // job that nodemailer's leaked pool slots held for ever: batch/mailer.test.ts).
    const started = Date.now();
    const watchdog = setInterval(() => process.stderr.write(`invoicing test app: close still waiting for ${ctx.closingStep?.() ?? '(nothing)'} after ${Math.round((Date.now() - started) / 1000)} s\n`), 60_000);
    try {
      await ctx.close?.();
    } finally {
      clearInterval(watchdog);
    }
  }, 180_000);
  return ctx;
}

/** The settings that point a live-mode app at an emulator's terminal. */
export function tbankEnv(emulator: TBankEmulator, terminal: string, password: string): Record<string, string> {
  return { LIVE_PAYMENT_PROVIDER: 'tbank', TBANK_API_URL: emulator.apiUrl, TBANK_TERMINAL_KEY: terminal, TBANK_PASSWORD: password };
}

/**
 * The acquirer as the money-path suites drive it: the emulator retries a notification within
 * seconds, calls time out after 3 s, and the reconciler asks GetState at once, so a test sees a
 * late or lost notification settled in seconds rather than minutes.
 */
export const FAST_ACQUIRER = { emulator: { retryDelaysMs: [100, 200, 400, 800, 1600, 3200] }, env: { TBANK_TIMEOUT_MS: '3000', TBANK_RECONCILE_AFTER_MS: '0' } };

/**
 * A listening app whose live mode runs on the T-Bank protocol emulator on loopback (one
 * terminal), both started before the file's tests and stopped after them.
 */
export function liveInvoicingForSuite(opts: { terminal: string; password: string; emulator?: Omit<EmulatorOptions, 'terminals'>; env?: Record<string, string> }) {
  const emulator = new TBankEmulator({ ...opts.emulator, terminals: { [opts.terminal]: opts.password } });
  const ctx = {} as Awaited<ReturnType<typeof startListeningInvoicingApp>>;
  beforeAll(async () => {
    await emulator.start();
    Object.assign(ctx, await startListeningInvoicingApp({ env: { ...tbankEnv(emulator, opts.terminal, opts.password), TBANK_TIMEOUT_MS: '5000', ...opts.env } }));
  }, 120_000);
  afterAll(async () => {
    await ctx.close?.();
    await emulator.stop();
  });
  return { ctx, emulator };
}

export interface TestMerchant {
  merchantId: string;
  /** A key of the requested mode (test by default). */
  apiKey: string;
  keyId: string;
  /** The live key registration gave; test and live data never mix. */
  liveKey: string;
  hmacSecret: string;
  isTest: boolean;
  /** Its name, which its payers' pages show (a page's language check allows it). */
  companyName: string;
}

/**
 * A merchant registered through the accounts package (registration itself is a crypto
 * endpoint), with a key of the requested mode. The HMAC secret is the merchant's, for both.
 */
export async function newMerchant(deps: { db: Transactions; secrets: SecretBox }, mode: 'test' | 'live' = 'test'): Promise<TestMerchant> {
  const companyName = 'Acme Ltd';
  const r = await registerMerchant(deps.db, deps.secrets, { companyName, email: `m-${randomUUID()}@example.test`, address: '1 Main St' });
  const base = { merchantId: r.merchant.id, liveKey: r.apiKeyValue, hmacSecret: r.hmacSecret, companyName };
  if (mode === 'live') return { ...base, apiKey: r.apiKeyValue, keyId: r.apiKey.id, isTest: false };
  const test = await createApiKey(deps.db, r.merchant.id, { name: 'tests', isTestKey: true });
  return { ...base, apiKey: test.apiKeyValue, keyId: test.apiKey.id, isTest: true };
}

/** A test-mode merchant in another database (a chaos stack's), for clients of a service process. */
export async function newMerchantIn(databaseUrl: string): Promise<TestMerchant> {
  const accounts = createAccountsDb(databaseUrl, 1);
  try {
    return await newMerchant({ db: accounts, secrets: SecretBox.fromEnv(process.env.SECRETS_KEY) });
  } finally {
    await accounts.$disconnect();
  }
}

/**
 * A console session for the key, as the console's sign-in form makes it (POST
 * /console/api/session): a supertest agent carrying the session cookie, the CSRF token changes
 * must send, and the session's cookie value. Throws unless the sign-in answered 200.
 */
export async function consoleSignIn(app: Express | string, apiKey: string) {
  const agent = request.agent(app);
  const res = await agent.post('/console/api/session').send({ apiKey });
  if (res.status !== 200) throw new Error(`console sign-in failed: ${res.status} ${JSON.stringify(res.body)}`);
  const session = /^console_session=([^;]+)/.exec(res.headers['set-cookie']?.[0] ?? '')?.[1];
  if (!session) throw new Error('console sign-in set no console_session cookie');
  return { agent, csrf: res.body.csrfToken as string, session, res };
}

/**
 * A chaos stack (@pay/testing) with an invoicing process on it, a merchant and its signed v2
 * client, which follows the process when `killAndReplace` swaps it for a new one.
 */
export async function invoicingOnChaosStack(name: string) {
  const stack = await startChaosStack(name);
  try {
    const merchant = await newMerchantIn(stack.postgres.url);
    let svc = await stack.spawn('invoicing');
    return {
      stack,
      merchant,
      client: apiClient(() => svc.url, merchant, 'v2'),
      /** SIGKILL mid-whatever, then a new process on the same stack. */
      async killAndReplace() {
        await killHard(svc);
        svc = await stack.spawn('invoicing');
      },
    };
  } catch (err) {
    await stack.close();
    throw err;
  }
}

/**
 * A signed v2 request as a merchant's client sends it: the body is serialised once here, so
 * the signature covers exactly the bytes sent; the query string is not signed.
 */
export function v2Request(
  app: Express | string,
  m: Pick<TestMerchant, 'apiKey' | 'hmacSecret'>,
  method: 'get' | 'post' | 'put' | 'patch' | 'delete',
  path: string,
  body?: unknown,
  opts: { now?: number; headers?: Record<string, string> } = {},
) {
  const raw = body === undefined ? '' : JSON.stringify(body);
  const headers = signedHeaders('v2', m.hmacSecret, { method: method.toUpperCase(), path: path.split('?')[0]!, body: raw, now: opts.now });
  let req = request(app)[method](path).set('x-api-key', m.apiKey);
  for (const [k, v] of Object.entries({ ...headers, ...opts.headers })) req = req.set(k, v);
  if (body !== undefined) req = req.set('Content-Type', 'application/json').send(raw);
  return req;
}

/** A v1 request: API key only. */
export function v1Request(app: Express | string, m: Pick<TestMerchant, 'apiKey'>, method: 'get' | 'post' | 'put' | 'delete', path: string, body?: unknown) {
  const req = request(app)[method](path).set('x-api-key', m.apiKey);
  return body === undefined ? req : req.send(body as object);
}

type V2Args = Parameters<typeof v2Request>;

/**
 * `v2Request` signed at the server clock's time (a ManualClock far from the wall clock would
 * otherwise put every timestamp out of the window), each request a millisecond after the
 * last, so a clock that stands still never makes two signatures alike (a replay).
 */
export function clockSigner(app: () => Express, clock: Clock) {
  let last = 0;
  return (m: V2Args[1], method: V2Args[2], path: string, body?: unknown, opts: { headers?: Record<string, string> } = {}) => {
    last = Math.max(clock.now().getTime(), last + 1);
    return v2Request(app(), m, method, path, body, { ...opts, now: last });
  };
}

/**
 * What a kill -9 after a request's write leaves behind: its Idempotency-Key claimed, the
 * answer never stored, and the claim no longer refreshed, so the next retry takes it over.
 */
export async function abandonIdempotencyClaim(db: InvoicingDeps['db'], key: string): Promise<void> {
  if ((await abandonClaim(db, key)) !== 1) throw new Error(`no stored answer for Idempotency-Key ${key}`);
}
