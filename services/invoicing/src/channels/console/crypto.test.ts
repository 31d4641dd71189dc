import { createServer, type Server } from 'node:http';
import request from 'supertest';
import { freePort } from '@pay/testing';
import { consoleSignIn, newMerchant, startInvoicingApp, type InvoicingTestApp } from '../../../test/test-support';

// The console's crypto pages when crypto's API cannot give the data: a clear message in the
// page, never an error page. (With crypto answering, crypto.browser.test.ts shows the
// data on the built services.) CRYPTO_BASE_URL names a port of this file's: first a server
// there that answers as an overloaded crypto does, then nothing at all.
let port: number;
let crypto: Server | null = null;
let asked: { path: string; session: string | undefined }[] = [];
let ctx: InvoicingTestApp;

beforeAll(async () => {
  // The app reads CRYPTO_BASE_URL at start.
  port = await freePort();
  ctx = await startInvoicingApp({ env: { CRYPTO_BASE_URL: `http://127.0.0.1:${port}` } });
});
afterAll(() => ctx?.close(), 180_000);

const PAGES = ['/console/crypto', '/console/crypto/transactions?page=2', '/console/crypto/withdrawals?status=Failed'];

async function signedIn() {
  const m = await newMerchant(ctx.deps);
  const { agent, session } = await consoleSignIn(ctx.app, m.apiKey);
  return { agent, session };
}

it('says crypto is unavailable when it answers 503, and passes the session to it, not a key', async () => {
  crypto = createServer((req, res) => {
    asked.push({ path: req.url!, session: req.headers['x-console-session'] as string | undefined });
    res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' }).end('{"success":false,"error":{"code":"SERVICE_UNAVAILABLE","message":"busy"}}');
  });
  await new Promise<void>((r) => crypto!.listen(port, '127.0.0.1', r));
  const { agent, session } = await signedIn();
  for (const path of PAGES) {
    const res = await agent.get(path);
    expect([path, res.status]).toEqual([path, 200]);
    expect(res.text).toContain('data-testid="crypto-unavailable"');
    expect(res.text).toMatch(/Crypto data is unavailable right now\.<\/strong> The crypto service is unavailable \(HTTP 503\)/);
    expect(res.text).toContain('aria-current="page"');
  }
  expect(asked.map((a) => a.path)).toEqual(['/api/v1/withdrawals/balance', '/api/v1/transactions?page=2&pageSize=20', '/api/v1/withdrawals?page=1&pageSize=20&status=Failed']);
  // The session the browser holds (its cookie's value), never an API key.
  expect(new Set(asked.map((a) => a.session))).toEqual(new Set([session]));
  await new Promise((r) => crypto!.close(r));
});

it('says crypto cannot be reached when nothing listens at CRYPTO_BASE_URL', async () => {
  const { agent } = await signedIn();
  for (const path of PAGES) {
    const res = await agent.get(path);
    expect([path, res.status]).toEqual([path, 200]);
    expect(res.text).toMatch(/Crypto data is unavailable right now\.<\/strong> The crypto service cannot be reached\./);
  }
});

it('sends a browser without a session to sign in, and asks crypto nothing', async () => {
  // A crypto that answers, so a request the console made would be counted here.
  asked = [];
  crypto = createServer((req, res) => {
    asked.push({ path: req.url!, session: req.headers['x-console-session'] as string | undefined });
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"success":true,"data":{"balances":[],"totalUsdValue":0}}');
  });
  await new Promise<void>((r) => crypto!.listen(port, '127.0.0.1', r));
  try {
    for (const path of PAGES) {
      const res = await request(ctx.app).get(path);
      expect([path, res.status, res.headers.location]).toEqual([path, 303, '/console/sign-in']);
    }
    expect(asked).toEqual([]);
    // The same server is asked once a session reads the page: the check above could fail.
    const { agent } = await signedIn();
    expect((await agent.get('/console/crypto')).text).toContain('data-testid="crypto-balances"');
    expect(asked.map((a) => a.path)).toEqual(['/api/v1/withdrawals/balance']);
  } finally {
    await new Promise((r) => crypto!.close(r));
  }
});
