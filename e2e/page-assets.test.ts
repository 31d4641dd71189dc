import request from 'supertest';
import { spawnBuiltService, type RunningService, BUILT_START_MS } from '@pay/testing';
import { newMerchantIn, startBuiltInvoicing, v1Request, v2Request, type TestMerchant } from '@pay/invoicing/test';

/**
 * Every page of the built stack, as scripts/stack.sh starts it, and every stylesheet, script
 * and image each one references (and every url() in those stylesheets): each must answer 200
 * from the built service. A page whose asset the build left behind fails here.
 */

let invoicing: Awaited<ReturnType<typeof startBuiltInvoicing>>;
let crypto: RunningService;
let m: TestMerchant;

beforeAll(async () => {
  // Crypto first: the console's crypto pages read crypto's merchant API at CRYPTO_BASE_URL.
  [crypto, m] = await Promise.all([spawnBuiltService('crypto'), newMerchantIn(process.env.DATABASE_URL!)]);
  invoicing = await startBuiltInvoicing({ env: { CRYPTO_BASE_URL: crypto.url } });
}, BUILT_START_MS);
afterAll(async () => {
  await crypto?.stop();
  await invoicing?.close();
});

const ATTRIBUTE_REFS = [/<link\b[^>]*\bhref="([^"]+)"/g, /<script\b[^>]*\bsrc="([^"]+)"/g, /<img\b[^>]*\bsrc="([^"]+)"/g, /<source\b[^>]*\bsrcset="([^"\s]+)/g];
const CSS_REFS = /url\(\s*['"]?([^'")]+)['"]?\s*\)/g;

/** What a page or stylesheet references, as absolute URLs; inline `data:` ones need no fetch. */
function referencesIn(text: string, patterns: RegExp[], base: string): string[] {
  const found = patterns.flatMap((p) => [...text.matchAll(p)].map((match) => match[1]!.replace(/&amp;/g, '&')));
  return found.filter((ref) => !ref.startsWith('data:') && !ref.startsWith('#')).map((ref) => new URL(ref, base).href);
}

async function expectAssetsOf(pageUrl: string, opts: { headers?: Record<string, string>; status?: number } = {}): Promise<string[]> {
  const page = await fetch(pageUrl, { headers: opts.headers });
  expect({ pageUrl, status: page.status }).toEqual({ pageUrl, status: opts.status ?? 200 });
  const text = await page.text();
  // A browser is always answered a page, a refusal included: never JSON.
  if (opts.headers?.accept?.startsWith('text/html')) expect({ pageUrl, type: page.headers.get('content-type') }).toEqual({ pageUrl, type: expect.stringMatching(/^text\/html/) });
  // A page names its icon: else the browser asks /favicon.ico by itself and is refused.
  if ((page.headers.get('content-type') ?? '').startsWith('text/html')) {
    expect({ pageUrl, icon: /<link\b[^>]*\brel="icon"/.test(text) }).toEqual({ pageUrl, icon: true });
  }
  const refs = referencesIn(text, ATTRIBUTE_REFS, pageUrl);
  const failed: string[] = [];
  for (const ref of refs) {
    const res = await fetch(ref);
    if (res.status !== 200) failed.push(`${res.status} ${ref}`);
    // A stylesheet is served as one, else the browser (nosniff) drops it.
    else if (/\.css(\?|$)/.test(ref) && !(res.headers.get('content-type') ?? '').startsWith('text/css')) failed.push(`${res.headers.get('content-type')} ${ref}`);
    else if ((res.headers.get('content-type') ?? '').startsWith('text/css')) {
      for (const inner of referencesIn(await res.text(), [CSS_REFS], ref)) {
        const r = await fetch(inner);
        if (r.status !== 200) failed.push(`${r.status} ${inner} (from ${ref})`);
      }
    }
  }
  expect({ pageUrl, failed }).toEqual({ pageUrl, failed: [] });
  return refs;
}

/** A browser's request: it asks for HTML, so a refusal is a page too. */
const BROWSER = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

it('every page of invoicing (payment, bank, KYC, console, docs, errors) gets each of its assets', async () => {
  const base = invoicing.base;
  await request(base).put('/api/v1/settings/currencies').set('x-api-key', m.liveKey).send({ enabledCurrencies: ['RUB', 'USD'] }).expect(200);
  // A brand colour: the pages then load /brand/<rrggbb>.css.
  expect((await v2Request(base, m, 'patch', '/api/v2/merchant/brand', { displayName: 'Acme Coffee', brandColor: '#1a7f5a' })).status).toBe(200);
  const sbp = (await v2Request(base, m, 'post', '/api/v2/invoices', { amount: 1490.9 })).body.invoice;
  const card = (await v2Request(base, m, 'post', '/api/v2/invoices', { amount: 10, paymentMethod: 'card' })).body.invoice;
  const usd = (await v1Request(base, m, 'post', '/api/v1/invoices', { amount: 49.9, currency: 'USD' })).body;
  const kyc = (await v1Request(base, m, 'post', '/api/v1/kyc/sessions', { level: 'basic', redirectUrl: 'https://shop.example/kyc-done' })).body;
  const session = await request(base).post('/console/api/session').send({ apiKey: m.apiKey }).expect(200);
  const cookie = { cookie: session.headers['set-cookie']![0]!.split(';')[0]! };

  const pages = [sbp.paymentLink, sbp.qrPayload, card.paymentLink, usd.paymentUrl, kyc.verificationUrl, `${base}/console/sign-in`, `${base}/docs`];
  expect(pages.filter((p) => typeof p !== 'string' || !p.startsWith(base))).toStrictEqual([]);
  const seen = new Set<string>();
  for (const page of pages) (await expectAssetsOf(page)).forEach((r) => seen.add(new URL(r).pathname));
  // Every console page: each NAV section, an invoice, a webhook, the crypto section (crypto's API behind it).
  const webhook = await request(base).post('/console/api/webhooks').set(cookie).set('X-CSRF-Token', session.body.csrfToken).send({ url: 'https://hooks.example.com/pay', events: ['invoice.paid'] }).expect(201);
  const consolePages = [
    '/console/payments',
    '/console/payments?mode=test&status=PENDING',
    `/console/payments/${sbp.id}`,
    '/console/webhooks',
    `/console/webhooks/${webhook.body.id}`,
    '/console/payment-reviews',
    '/console/kyc',
    '/console/crypto',
    '/console/crypto/transactions',
    '/console/crypto/withdrawals',
    '/console/settings',
  ];
  for (const path of consolePages) (await expectAssetsOf(`${base}${path}`, { headers: cookie })).forEach((r) => seen.add(new URL(r).pathname));
  // Links to nowhere, as a browser follows them: the refusal page in HTML, with its assets.
  // A malformed invoice id is the broken-link page (400), the rest are not found (404).
  for (const [path, status] of [['/pay/00000000-0000-4000-8000-000000000000', 404], ['/pay/', 404], ['/pay/not-an-id', 400], ['/no-such-page', 404]] as const) {
    (await expectAssetsOf(`${base}${path}`, { status, headers: BROWSER })).forEach((r) => seen.add(new URL(r).pathname));
  }
  // The pages do use their own stylesheets and scripts (a page without any would pass above), and the brand's.
  expect([...seen]).toEqual(
    expect.arrayContaining(['/assets/invoicing/pay.css', '/assets/invoicing/pay.js', '/assets/invoicing/kyc.js', '/assets/invoicing/console.css', '/assets/invoicing/console.js', '/brand/1a7f5a.css']),
  );
}, 60_000);

it('every page of crypto (payment, errors, docs) gets each of its assets', async () => {
  const reg = await request(crypto.url).post('/api/v1/merchants/register').send({ companyName: 'Acme', email: `a-${Date.now()}@example.test`, address: '1 Main St' }).expect(201);
  const key = (await request(crypto.url).post('/api/v1/api-keys').set('X-Api-Key', reg.body.data.apiKey.apiKey).send({ name: 't', isTestKey: true }).expect(201)).body.data.apiKey;
  // The brand is set on invoicing's API (one merchant, two base URLs); crypto's page shows it too.
  const brand = await v2Request(invoicing.base, { apiKey: key, hmacSecret: reg.body.data.apiKey.hmacSecret }, 'patch', '/api/v2/merchant/brand', { displayName: 'Acme Crypto', brandColor: '#2b4c7e' });
  expect(brand.status).toBe(200);
  const inv = (await request(crypto.url).post('/api/v1/invoices').set('X-Api-Key', key).send({ amount: 5, currency: 'USDT_ERC20' }).expect(201)).body.data;
  const seen = new Set<string>();
  for (const page of [inv.paymentUrl, `${inv.paymentUrl}?lang=ru`, `${crypto.url}/docs`]) (await expectAssetsOf(page)).forEach((r) => seen.add(new URL(r).pathname));
  for (const path of ['/pay/00000000-0000-4000-8000-000000000000', '/pay/', '/pay/not-an-id', '/no-such-page']) {
    (await expectAssetsOf(`${crypto.url}${path}`, { status: 404, headers: BROWSER })).forEach((r) => seen.add(new URL(r).pathname));
  }
  expect([...seen].filter((p) => p.startsWith('/assets/crypto/')).length).toBeGreaterThan(0);
  expect([...seen]).toContain('/brand/2b4c7e.css');
}, 60_000);
