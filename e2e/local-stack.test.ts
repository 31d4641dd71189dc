import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { signedHeaders } from '@pay/auth';
import { apiClient, buildOncePerRun, eventually, expectStatus, freePort, idleStackEnv, openBrowser, registerCryptoMerchant, type RegisteredMerchant } from '@pay/testing';
import { moscowDay, multipartBody, receiptPdf } from '../services/invoicing/test/receipts/test-fixtures';

/**
 * The local stack as a developer starts it (`bash scripts/stack.sh`, issue 21), on a database
 * and ports of its own: the three services with the dev mailbox (maildev) and the receipts
 * bucket (s3rver) beside them. Batch e-mails land in the mailbox, where a person reads them
 * (maildev's REST API, what its web inbox shows) and opens the payment link; receipt files go
 * through the S3-compatible server: uploaded, checked, downloaded, and deleted again when the
 * upload is refused after its file was stored.
 */
const ROOT = join(__dirname, '..');
const run = promisify(execFile);

let env: Record<string, string>;
let urls: { invoicing: string; crypto: string; mailbox: string; s3: string };
let printed = '';
let state: string;

beforeAll(async () => {
  state = mkdtempSync(join(tmpdir(), 'stack-'));
  const [idle, ports] = await Promise.all([idleStackEnv('local_stack'), Promise.all([1, 2, 3, 4, 5, 6].map(() => freePort())), buildOncePerRun()]);
  const [invoicing, crypto, worker, mailWeb, mailSmtp, s3] = ports;
  env = {
    ...(process.env as Record<string, string>),
    ...idle,
    // Dependencies, migrations and bundles are in place (the test run built them once).
    STACK_SKIP_PREPARE: '1',
    STACK_STATE: state,
    INVOICING_PORT: String(invoicing),
    CRYPTO_PORT: String(crypto),
    WORKER_PORT: String(worker),
    MAILDEV_WEB_PORT: String(mailWeb),
    MAILDEV_SMTP_PORT: String(mailSmtp),
    S3RVER_PORT: String(s3),
    LOG_LEVEL: 'info',
    OUTBOX_INTERVAL_MS: '50',
  };
  urls = { invoicing: `http://127.0.0.1:${invoicing}`, crypto: `http://127.0.0.1:${crypto}`, mailbox: `http://127.0.0.1:${mailWeb}`, s3: `http://127.0.0.1:${s3}` };
  printed = (await run('bash', ['scripts/stack.sh'], { cwd: ROOT, env, timeout: 180_000 })).stdout;
}, 240_000);

afterAll(async () => {
  if (env) await run('bash', ['scripts/stack.sh', 'stop'], { cwd: ROOT, env, timeout: 60_000 });
  rmSync(state, { recursive: true, force: true });
}, 90_000);

let merchant: RegisteredMerchant;
beforeAll(async () => {
  merchant = await registerCryptoMerchant(urls.crypto);
});

it('prints the mailbox and the receipts bucket beside the three services', () => {
  expect(printed).toContain(`invoicing       ${urls.invoicing}`);
  expect(printed).toContain(`crypto          ${urls.crypto}`);
  expect(printed).toMatch(new RegExp(`mailbox +${urls.mailbox} +\\(batch e-mails: SMTP 127.0.0.1:${env.MAILDEV_SMTP_PORT}`));
  expect(printed).toMatch(new RegExp(`receipts \\(S3\\) +${urls.s3} +\\(s3rver, bucket receipts`));
});

interface MaildevEmail {
  id: string;
  subject: string;
  to: { address: string }[];
  html?: string;
  text?: string;
}

it('a batch with sendEmails lands in the mailbox, and the payment link in an e-mail opens the invoice’s page', async () => {
  const live = apiClient(urls.invoicing, { apiKey: merchant.liveKey });
  expectStatus(await live.keyed('PUT', '/api/v1/settings/currencies', { enabledCurrencies: ['RUB'] }), 200, 'enable RUB');
  const tag = Date.now().toString(36);
  const to = [`anna-${tag}@example.com`, `boris-${tag}@example.com`];
  const form = new FormData();
  form.set('sendEmails', 'true');
  form.set('file', new Blob([`amount,currency,email\n150,RUB,${to[0]}\n275.50,RUB,${to[1]}\n`], { type: 'text/csv' }), 'invoices.csv');
  const batch = expectStatus(await apiClient(urls.invoicing, { apiKey: merchant.apiKey }).keyed('POST', '/api/v1/batch/invoices', form), 201, 'batch');
  expect(batch).toMatchObject({ total: 2, created: 2, failed: 0 });

  // What the web inbox lists: one e-mail per row, to that row's address.
  const mails = await eventually(
    async () => {
      const res = await fetch(`${urls.mailbox}/api/email`);
      expect(res.status).toBe(200);
      const mine = ((await res.json()) as MaildevEmail[]).filter((m) => m.to.some((t) => to.includes(t.address)));
      expect(mine.map((m) => m.to[0]!.address).sort()).toEqual([...to].sort());
      return mine;
    },
    60_000,
    200,
  );
  // Each e-mail as the inbox opens it, with its invoice's payment link in the text and as a link in the HTML.
  const opened = await Promise.all(mails.map(async (m) => (await (await fetch(`${urls.mailbox}/api/email/${m.id}`)).json()) as MaildevEmail));
  const invoices = batch.invoices as { id: string; paymentUrl: string; amount: number }[];
  for (const invoice of invoices) {
    expect(invoice.paymentUrl).toBe(`${urls.invoicing}/pay/${invoice.id}`);
    expect(opened.filter((m) => (m.text ?? '').includes(invoice.paymentUrl))).toHaveLength(1);
    expect(opened.filter((m) => (m.html ?? '').includes(`<a href="${invoice.paymentUrl}">Pay it here</a>`))).toHaveLength(1);
  }

  // As a person does it: the web inbox in a browser, the e-mail opened, its link followed to the
  // invoice's page. (maildev shows the HTML in a sandboxed frame, where the payment page refuses to
  // be framed, so the link is opened as "open in a new tab" would.)
  const browser = await openBrowser();
  try {
    const inbox = await browser.context.newPage();
    await inbox.goto(urls.mailbox);
    await inbox.getByText(to[1]!).first().click();
    const link = inbox.frameLocator('iframe').getByRole('link', { name: 'Pay it here' });
    const href = await link.getAttribute('href');
    const paid = invoices.find((i) => i.amount === 275.5)!;
    expect(href).toBe(paid.paymentUrl);
    const tab = await browser.context.newPage();
    const res = await tab.goto(href!);
    expect(res?.status()).toBe(200);
    expect(await tab.locator('body').innerText()).toMatch(/275[.,]50/);
  } finally {
    await browser.close();
  }
}, 120_000);

/** The receipts bucket's keys under a prefix, through the S3 API (ListObjects) of the server the stack runs. */
async function bucketKeys(prefix: string): Promise<string[]> {
  const res = await fetch(`${urls.s3}/receipts?prefix=${encodeURIComponent(prefix)}`);
  expect(res.status).toBe(200);
  return [...(await res.text()).matchAll(/<Key>([^<]+)<\/Key>/g)].map((m) => m[1]!);
}

it('receipts go through the S3-compatible server: uploaded, checked, downloaded, and deleted when the upload is refused', async () => {
  const v2 = apiClient(urls.invoicing, merchant, 'v2');
  const invoice = expectStatus(await v2.signed('POST', '/api/v2/invoices', { amount: 500 }), 201, 'invoice').invoice;
  const upload = async (bytes: Buffer) => {
    const path = `/api/v2/invoices/${invoice.id}/receipts`;
    const { body, contentType } = multipartBody('file', 'receipt.pdf', 'application/pdf', bytes);
    const res = await fetch(`${urls.invoicing}${path}`, {
      method: 'POST',
      headers: { 'x-api-key': merchant.apiKey, 'content-type': contentType, ...signedHeaders('v2', merchant.hmacSecret, { method: 'POST', path, body }) },
      body,
    });
    return { status: res.status, body: (await res.json()) as { receipt?: { id: string }; error?: { code: string } } };
  };

  const pdf = await receiptPdf({ amount: '500.00 RUB', date: `${moscowDay(0)} 12:00` });
  const first = await upload(pdf);
  expect(first.status).toBe(201);
  const id = first.body.receipt!.id;
  expect(await bucketKeys(`${merchant.merchantId}/`)).toEqual([`${merchant.merchantId}/${id}`]);

  // Checked by the workers, which read the file back from the bucket.
  await eventually(async () => expect(expectStatus(await v2.signed('GET', `/api/v2/receipts/${id}`), 200, 'receipt').receipt).toMatchObject({ status: 'APPROVED', verifiedAmount: 500 }), 60_000, 200);

  // Downloaded by the merchant: the bytes uploaded.
  const path = `/api/v2/receipts/${id}/file`;
  const file = await fetch(`${urls.invoicing}${path}`, { headers: { 'x-api-key': merchant.apiKey, ...signedHeaders('v2', merchant.hmacSecret, { method: 'GET', path, body: '' }) } });
  expect(file.status).toBe(200);
  expect(Buffer.from(await file.arrayBuffer()).equals(pdf)).toBe(true);

  // An invoice takes 20 receipts; the 21st is refused after its file was stored, and that file is deleted.
  for (let i = 1; i < 20; i++) expect((await upload(pdf)).status).toBe(201);
  expect(await bucketKeys(`${merchant.merchantId}/`)).toHaveLength(20);
  const refused = await upload(pdf);
  expect(refused).toMatchObject({ status: 422, body: { error: { code: 'INVALID_STATE' } } });
  expect(await bucketKeys(`${merchant.merchantId}/`)).toHaveLength(20);
}, 180_000);
