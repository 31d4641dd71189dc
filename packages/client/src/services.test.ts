/**
 * The SDK against the real services, built and started as scripts/stack.sh starts them: its
 * signatures are accepted in both styles, a replay of one is refused, list operations page
 * through real lists, and a rate limit's 429 is waited out. The README's whole session runs
 * through the packed SDK in example.test.ts; a Postgres restart in postgres-restart.chaos.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawnBuiltService, type RunningService, BUILT_START_MS } from '@pay/testing';
import { PayApiError, PayClient } from './index';
import { recordingFetch } from './recording-fetch';

let crypto: RunningService;
let invoicing: RunningService;
let limited: RunningService;
let merchant: { liveKey: string; testKey: string; hmacSecret: string };
// Receipt files the upload test stores go to a folder of this file's, never into the work tree.
const receiptsDir = mkdtempSync(path.join(tmpdir(), 'pay-sdk-receipts-'));

beforeAll(async () => {
  [crypto, invoicing, limited] = await Promise.all([
    spawnBuiltService('crypto', { RUN_WORKERS: 'false' }),
    spawnBuiltService('invoicing', { RUN_WORKERS: 'false', RECEIPTS_DIR: receiptsDir }),
    // Two requests a second per key: the 429 test's own process.
    spawnBuiltService('invoicing', { RUN_WORKERS: 'false', RATE_LIMIT_PER_SECOND: '2' }),
  ]);
  const anonymous = new PayClient({ cryptoUrl: crypto.url });
  const reg = await anonymous.crypto.registerMerchant({ body: { companyName: 'SDK Ltd', email: `sdk-${randomUUID()}@example.test`, address: '1 Main St' } });
  const live = new PayClient({ apiKey: reg.data.apiKey.apiKey, cryptoUrl: crypto.url });
  const test = await live.crypto.createApiKey({ body: { name: 'sdk tests', isTestKey: true } });
  merchant = { liveKey: reg.data.apiKey.apiKey, testKey: test.data.apiKey, hmacSecret: reg.data.apiKey.hmacSecret };
}, BUILT_START_MS);
afterAll(async () => {
  await Promise.all([crypto?.stop(), invoicing?.stop(), limited?.stop()]);
  rmSync(receiptsDir, { recursive: true, force: true });
});

const sdk = (over: Partial<ConstructorParameters<typeof PayClient>[0]> = {}) =>
  new PayClient({ apiKey: merchant.testKey, hmacSecret: merchant.hmacSecret, invoicingUrl: invoicing.url, cryptoUrl: crypto.url, ...over });

it('is accepted in both signing styles, and a replay of a signed request is refused', async () => {
  const { fetch, log } = recordingFetch();
  const v2 = sdk({ fetch });
  const created = await v2.invoicing.createInvoice({ body: { amount: 1490.9, description: 'Warm blanket' } });
  expect(created.invoice).toMatchObject({ amount: 1490.9, status: 'PENDING' });
  // The live key changes the webhook URL: a crypto-style (Base64, seconds) signed PUT.
  const live = sdk({ fetch, apiKey: merchant.liveKey });
  await live.crypto.setMerchantWebhook({ body: { webhookUrl: 'https://shop.example/hooks' } });
  expect(log.map((e) => e.status)).toEqual([201, 200]);

  for (const sent of log) {
    const again = await globalThis.fetch(sent.url, { method: sent.method, headers: sent.headers, body: sent.body });
    expect({ url: sent.url, status: again.status, body: await again.json() }).toMatchObject({
      status: 401,
      body: { success: false, error: { code: 'REPLAYED_REQUEST' } },
    });
  }
  // The same call through the SDK is signed anew: accepted (and the create, under a new key, is a second invoice).
  await expect(live.crypto.setMerchantWebhook({ body: { webhookUrl: 'https://shop.example/hooks' } })).resolves.toMatchObject({ success: true });
});

it('throws the service’s own error, with its X-Request-Id, and does not retry it', async () => {
  const { fetch, log } = recordingFetch();
  const err = (await sdk({ fetch })
    .invoicing.createInvoice({ body: { amount: -5, description: 'x' } })
    .catch((e: unknown) => e)) as PayApiError;
  expect(err).toBeInstanceOf(PayApiError);
  expect(err).toMatchObject({ status: 400, code: 'VALIDATION_ERROR', details: [expect.objectContaining({ field: 'amount' })] });
  expect(err.requestId).toMatch(/\S/);
  expect(log).toHaveLength(1);
});

it('pages through real lists: v2 by offset, crypto by page', async () => {
  const client = sdk(await newMerchantKeys());
  const made = [];
  for (let i = 0; i < 5; i++) made.push((await client.invoicing.createInvoice({ body: { amount: 100 + i, description: `page ${i}` } })).invoice.id);
  const seen: string[] = [];
  for await (const invoice of client.invoicing.each('listInvoices', { query: { limit: 2 } })) seen.push(invoice.id);
  expect(seen.sort()).toEqual([...made].sort());

  const crypto: string[] = [];
  for (let i = 0; i < 3; i++) crypto.push((await client.crypto.createInvoice({ body: { amount: 10 + i, currency: 'USDT_TRC20' } })).data.id);
  const listed: string[] = [];
  for await (const invoice of client.crypto.each('listInvoices', { query: { pageSize: 2 } })) listed.push(invoice.id);
  expect(listed.sort()).toEqual([...crypto].sort());
});

it('waits out a 429 for its Retry-After and then succeeds', async () => {
  const { fetch, log } = recordingFetch();
  const client = sdk({ fetch, invoicingUrl: limited.url, maxRetries: 5 });
  // Six calls at once, each its own URL (limit 1..6), so each one's attempts can be told apart.
  const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => client.invoicing.listInvoices({ query: { limit: i + 1 } })));
  expect(answers.every((a) => a.success)).toBe(true);
  const refused = log.filter((e) => e.status === 429);
  expect(refused.length).toBeGreaterThan(0);
  for (const r of refused) {
    expect(Number(r.retryAfter)).toBeGreaterThanOrEqual(1);
    // The call's next attempt: signed anew, and sent no sooner than Retry-After asked (its answer came later still).
    const next = log.find((e) => e.url === r.url && e.at > r.at)!;
    expect(next).toBeDefined();
    expect(next.headers['x-signature']).not.toBe(r.headers['x-signature']);
    expect(next.at - r.at).toBeGreaterThanOrEqual(Number(r.retryAfter) * 1000);
  }
  // Every call ended in a success: its last attempt answered 200.
  for (let i = 1; i <= 6; i++) expect(log.filter((e) => e.url.endsWith(`limit=${i}`)).at(-1)!.status).toBe(200);
}, 60_000);

it('sends a signed multipart upload as the bytes it signed, and reads a download back as bytes', async () => {
  const client = sdk();
  const { invoice } = await client.invoicing.createInvoice({ body: { amount: 300, description: 'with a receipt' } });
  // A 1×1 PNG: the service judges the file by its bytes.
  const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
  const form = new FormData();
  form.append('file', new Blob([png], { type: 'image/png' }), 'receipt.png');
  const { receipt } = await client.invoicing.uploadReceipt({ path: { invoiceId: invoice.id }, body: form });
  expect(receipt).toMatchObject({ invoiceId: invoice.id, status: 'PENDING' });
  const file = await client.invoicing.downloadReceiptFile({ path: { receiptId: receipt.id } });
  expect(file.contentType).toMatch(/^image\/png/);
  expect(Buffer.from(file.data).equals(png)).toBe(true);
});

/** Another merchant's test key and secret: lists whose content the test knows. */
async function newMerchantKeys() {
  const fresh = new PayClient({ cryptoUrl: crypto.url });
  const reg = await fresh.crypto.registerMerchant({ body: { companyName: 'Pages Ltd', email: `pages-${randomUUID()}@example.test`, address: '1 Main St' } });
  const key = await new PayClient({ apiKey: reg.data.apiKey.apiKey, cryptoUrl: crypto.url }).crypto.createApiKey({ body: { name: 'pages', isTestKey: true } });
  return { apiKey: key.data.apiKey, hmacSecret: reg.data.apiKey.hmacSecret };
}
