import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { signedHeaders } from '@pay/auth';
import { apiClient, artefactsDir, assertAccessible, assertNoEnglish, buildOncePerRun, eventually, expectStatus, freePort, idleStackEnv, maildevEmails, openBrowser, phonePage, registerCryptoMerchant, type RegisteredMerchant } from '@pay/testing';
import { moscowDay, multipartBody, receiptPdf } from '@pay/invoicing/test';

/**
 * The local stack as a developer starts it (`bash scripts/stack.sh`, issue 21), on a database
 * and ports of its own: the three services with the dev mailbox (maildev) and the receipts
 * bucket (s3rver) beside them. Batch e-mails land in the mailbox, where a person reads them
 * (maildev's REST API, what its web inbox shows) and clicks the payment link in the inbox; receipt files go
 * through the S3-compatible server: uploaded, checked, downloaded, and deleted again when the
 * upload is refused after its file was stored.
 */
const ROOT = join(__dirname, '..');
const execFileAsync = promisify(execFile);
/** A command's output; when it fails, the error names what it printed (stack.sh says which service did not start). */
async function run(file: string, args: string[], options: Parameters<typeof execFileAsync>[2]): Promise<{ stdout: string }> {
  try {
    const { stdout } = await execFileAsync(file, args, { ...options, encoding: 'utf8' });
    return { stdout: String(stdout) };
  } catch (err) {
    const e = err as Error & { stdout?: string; stderr?: string; killed?: boolean; signal?: string };
    // Killed: it ran out of its timeout (a loaded machine), not a failure it reported itself.
    const killed = e.killed ? ` (killed by ${e.signal} after its ${options?.timeout} ms timeout)` : '';
    throw new Error(`${e.message}${killed}\n--- stdout:\n${e.stdout ?? ''}\n--- stderr:\n${e.stderr ?? ''}`);
  }
}

let env: Record<string, string>;
let urls: { invoicing: string; crypto: string; mailbox: string; s3: string };
let printed = '';
let state: string;

beforeAll(async () => {
  state = mkdtempSync(join(tmpdir(), 'stack-'));
  const [idle, ports] = await Promise.all([idleStackEnv('local_stack'), Promise.all([1, 2, 3, 4, 5, 6, 7].map(() => freePort())), buildOncePerRun()]);
  const [invoicing, crypto, worker, mailWeb, mailSmtp, s3, cryptoWorkers] = ports;
  env = {
    ...(process.env as Record<string, string>),
    ...idle,
    // Dependencies, migrations and bundles are in place (the test run built them once).
    STACK_SKIP_PREPARE: '1',
    STACK_STATE: state,
    INVOICING_PORT: String(invoicing),
    CRYPTO_PORT: String(crypto),
    CRYPTO_WORKERS_PORT: String(cryptoWorkers),
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
  if (env) await run('bash', ['scripts/stack.sh', 'stop'], { cwd: ROOT, env, timeout: 240_000 });
  rmSync(state, { recursive: true, force: true });
}, 300_000);

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
  const opened = await eventually(
    async () => {
      const mine = (await maildevEmails(urls.mailbox)).filter((m) => m.to.some((t) => to.includes(t.address)));
      expect(mine.map((m) => m.to[0]!.address).sort()).toEqual([...to].sort());
      return mine;
    },
    60_000,
    200,
  );
  // Each e-mail as the inbox opens it, with its invoice's payment link in the text and as a link in the HTML,
  // in the merchant's default language (Russian until it sets another: the spec's CSV names no language).
  const invoices = batch.invoices as { id: string; paymentUrl: string; amount: number }[];
  for (const invoice of invoices) {
    expect(invoice.paymentUrl).toBe(`${urls.invoicing}/pay/${invoice.id}`);
    expect(opened.filter((m) => (m.text ?? '').includes(invoice.paymentUrl))).toHaveLength(1);
    expect(opened.filter((m) => (m.html ?? '').includes(`<a href="${invoice.paymentUrl}" target="_blank" rel="noopener">Оплатить счёт</a>`))).toHaveLength(1);
  }

  // As a person does it: the web inbox in a browser, the e-mail opened, its link clicked where
  // the inbox shows the message (in a frame), landing on the invoice's page in a new top-level
  // tab: framed, the page would refuse to show (frame-ancestors 'none').
  const browser = await openBrowser();
  try {
    const inbox = await browser.context.newPage();
    await inbox.goto(urls.mailbox);
    await inbox.getByText(to[1]!).first().click();
    const paid = invoices.find((i) => i.amount === 275.5)!;
    const link = inbox.frameLocator('iframe.panel-html').getByRole('link', { name: 'Оплатить счёт' });
    expect(await link.getAttribute('href')).toBe(paid.paymentUrl);
    const [tab] = await Promise.all([browser.context.waitForEvent('page', { timeout: 30_000 }), link.click()]);
    await tab.waitForLoadState();
    expect(tab.url()).toBe(paid.paymentUrl);
    expect(await tab.locator('body').innerText()).toMatch(/275[.,]50/);
    // The inbox stays where it was: the message, not an error page in its frame.
    expect(await inbox.frameLocator('iframe.panel-html').locator('body').innerText()).toContain('Оплатить счёт');
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

/**
 * A second whole stack beside the first (issue 29), as `STACK_STATE=/x bash scripts/stack.sh
 * devnet --tbank-emulator` starts it: its own state folder (pids, logs, devnet settings), its
 * own ports, database and Redis db, with a devnet and the T-Bank emulator, while the first one
 * keeps running. A live USDT invoice on it is paid on its devnet through `pnpm devnet:pay`,
 * which finds that devnet through the same STACK_STATE.
 */
describe('a second stack, with the devnet and the T-Bank emulator, beside the first', () => {
  let env2: Record<string, string>;
  let state2: string;
  let printed2 = '';
  let urls2: { invoicing: string; crypto: string; emulator: string; devnet: string; devnetBsc: string };

  beforeAll(async () => {
    state2 = mkdtempSync(join(tmpdir(), 'stack2-'));
    const [idle, ports] = await Promise.all([idleStackEnv('local_stack_2'), Promise.all([1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map(() => freePort()))]);
    const [invoicing, crypto, worker, mailWeb, mailSmtp, s3, emulator, devnet, devnetBsc, cryptoWorkers] = ports;
    // Redis db 8 above this jest worker's own (workers use the low dbs): the second stack's queues apart from the first's.
    const redis = new URL(idle.REDIS_URL);
    redis.pathname = `/${Number(redis.pathname.slice(1) || 0) + 8}`;
    env2 = {
      ...(process.env as Record<string, string>),
      DATABASE_URL: idle.DATABASE_URL,
      REDIS_URL: redis.toString(),
      STACK_SKIP_PREPARE: '1',
      STACK_STATE: state2,
      INVOICING_PORT: String(invoicing),
      CRYPTO_PORT: String(crypto),
      CRYPTO_WORKERS_PORT: String(cryptoWorkers),
      WORKER_PORT: String(worker),
      MAILDEV_WEB_PORT: String(mailWeb),
      MAILDEV_SMTP_PORT: String(mailSmtp),
      S3RVER_PORT: String(s3),
      TBANK_EMULATOR_PORT: String(emulator),
      DEVNET_PORT: String(devnet),
      DEVNET_BSC_PORT: String(devnetBsc),
      LOG_LEVEL: 'info',
    };
    urls2 = { invoicing: `http://127.0.0.1:${invoicing}`, crypto: `http://127.0.0.1:${crypto}`, emulator: `http://127.0.0.1:${emulator}`, devnet: `http://127.0.0.1:${devnet}`, devnetBsc: `http://127.0.0.1:${devnetBsc}` };
    printed2 = (await run('bash', ['scripts/stack.sh', 'devnet', '--tbank-emulator'], { cwd: ROOT, env: env2, timeout: 240_000 })).stdout;
  }, 300_000);

  afterAll(async () => {
    if (env2) await run('bash', ['scripts/stack.sh', 'stop'], { cwd: ROOT, env: env2, timeout: 240_000 });
    rmSync(state2, { recursive: true, force: true });
  }, 300_000);

  it('keeps its devnet settings, pids and logs in its own state folder, on its own ports', () => {
    expect(printed2).toContain(`invoicing       ${urls2.invoicing}`);
    expect(printed2).toContain(`tbank-emulator  ${urls2.emulator}/v2`);
    expect(printed2).toContain(`settings:       ${join(state2, 'devnet.env')}`);
    const settings = readFileSync(join(state2, 'devnet.env'), 'utf8');
    expect(settings).toContain(`EVM_RPC_URL_ETHEREUM=${urls2.devnet}`);
    expect(settings).toContain(`EVM_RPC_URL_BSC=${urls2.devnetBsc}`);
    for (const name of ['invoicing', 'crypto', 'crypto-workers', 'webhook-worker', 'tbank-emulator', 'maildev', 's3rver', 'devnet']) expect(existsSync(join(state2, `${name}.pid`))).toBe(true);
    // The first stack's folder holds no devnet: the second wrote nothing there.
    expect(existsSync(join(state, 'devnet.env'))).toBe(false);
  });

  let second: RegisteredMerchant;
  it('runs while the first stack runs, on a database of its own, and takes live USDT on its devnet', async () => {
    for (const url of [urls.invoicing, urls.crypto, urls2.invoicing, urls2.crypto]) expect((await fetch(`${url}/readyz`)).status).toBe(200);
    second = await registerCryptoMerchant(urls2.crypto, 'Second stack');
    // Unknown to the first stack: another database.
    expect((await apiClient(urls.crypto, { apiKey: second.liveKey }).keyed('GET', '/api/v1/merchants/profile')).status).toBe(401);
    const live = apiClient(urls2.crypto, { apiKey: second.liveKey });
    // Above the live minimum withdrawal of USDT_ERC20 (100 by default), which the next test takes out.
    const invoice = expectStatus(await live.keyed('POST', '/api/v1/invoices', { amount: 150, currency: 'USDT_ERC20' }), 201, 'live USDT invoice').data;
    // pnpm and tsx start slowly on a loaded machine: minutes are allowed, not seconds.
    await run('pnpm', ['--silent', 'devnet:pay', invoice.address, '150'], { cwd: ROOT, env: env2, timeout: 240_000 });
    await eventually(async () => expect(expectStatus(await live.keyed('GET', `/api/v1/invoices/${invoice.id}`), 200, 'invoice').data.status).toBe('Paid'), 90_000, 500);
    // The emulator answers the protocol on its port.
    expect((await fetch(`${urls2.emulator}/v2/GetState`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBeLessThan(500);
  }, 420_000);

  /** The environment a stack process started with, as the kernel keeps it (/proc/<pid>/environ). */
  const environOf = (name: string) => readFileSync(`/proc/${readFileSync(join(state2, `${name}.pid`), 'utf8').trim()}/environ`, 'utf8').split('\0');

  it('keeps the hot wallet’s key in a 0600 file that crypto-workers alone is given, in no process’s environment', () => {
    const keyFile = join(state2, 'devnet-payout-key');
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    const key = readFileSync(keyFile, 'utf8').trim().replace(/^0x/, '');
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(readFileSync(join(state2, 'devnet.env'), 'utf8')).not.toContain(key);
    expect(environOf('crypto-workers')).toEqual(expect.arrayContaining([`PAYOUT_PRIVATE_KEY_FILE=${keyFile}`, 'SERVE_API=false']));
    for (const name of ['crypto', 'crypto-workers', 'invoicing', 'webhook-worker', 'tbank-emulator']) {
      const environ = environOf(name);
      expect({ name, key: environ.some((v) => v.includes(key)), variable: environ.some((v) => v.startsWith('PAYOUT_PRIVATE_KEY=')) }).toEqual({ name, key: false, variable: false });
      if (name !== 'crypto-workers') expect({ name, file: environ.some((v) => v.startsWith('PAYOUT_PRIVATE_KEY_FILE=')) }).toEqual({ name, file: false });
    }
  });

  it('pays a live withdrawal on its devnet from the hot wallet whose key crypto-workers read from its file', async () => {
    const live = apiClient(urls2.crypto, { apiKey: second.liveKey, hmacSecret: second.hmacSecret }, 'crypto');
    const usdt = async () => (expectStatus(await live.keyed('GET', '/api/v1/withdrawals/balance'), 200, 'balance').data.balances as { currency: string; available: number }[]).find((b) => b.currency === 'USDT_ERC20')!;
    expect((await usdt()).available).toBe(148.5); // 150 less the 1% fee
    const to = `0x${randomBytes(20).toString('hex')}`;
    const created = expectStatus(await live.signed('POST', '/api/v1/withdrawals', { toAddress: to, amount: 120, currency: 'USDT_ERC20' }), 201, 'live withdrawal').data;
    expect((await usdt()).available).toBe(28.5);
    const done = await eventually(
      async () => {
        const w = expectStatus(await live.keyed('GET', `/api/v1/withdrawals/${created.id}`), 200, 'withdrawal').data;
        if (w.status === 'Failed') throw new Error(`the withdrawal failed: ${JSON.stringify(w)}`);
        expect(w.status).toBe('Completed');
        return w;
      },
      180_000,
      500,
    );
    expect(done.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    // On chain, as `pnpm devnet:balance` reads it: the net amount arrived from the hot wallet.
    const balance = await run('pnpm', ['--silent', 'devnet:balance', to], { cwd: ROOT, env: env2, timeout: 240_000 });
    expect(balance.stdout.trim()).toBe(`118.8 USDT_ERC20 at ${to}`);
    expect((await usdt()).available).toBe(28.5);
  }, 420_000);

  /**
   * Issue 31's walk, on the stack as a developer starts it (`stack.sh devnet --tbank-emulator`):
   * a payer in Russian on a phone pays a card invoice at the acquirer's form and a live USDT
   * invoice on the devnet, and the merchant refunds part of the card payment from the
   * dashboard; the payer's page then says so, in Russian. Screenshots in artefacts/walk/.
   */
  it('the walk: a payer in ru on a phone pays fiat by card and crypto by USDT; the merchant refunds from the dashboard; the payer sees the refund', async () => {
    const shots = artefactsDir('walk');
    const invoicing = apiClient(urls2.invoicing, { apiKey: second.liveKey, hmacSecret: second.hmacSecret });
    const crypto = apiClient(urls2.crypto, { apiKey: second.liveKey });
    expectStatus(await invoicing.signed('PATCH', '/api/v2/merchant/brand', { displayName: 'Ромашка', brandColor: '#7B2CBF' }), 200, 'brand');
    const browser = await openBrowser();
    try {
      const { page, problems: consoleErrors } = await phonePage(browser.context);
      await page.setExtraHTTPHeaders({ 'Accept-Language': 'ru-RU,ru;q=0.9' });
      // A failed request is named by its URL, ours only: T-Bank's form (the emulator) has no favicon.
      const ours = [urls2.invoicing, urls2.crypto];
      const failed: string[] = [];
      page.on('response', (r) => r.status() >= 400 && ours.some((o) => r.url().startsWith(o)) && failed.push(`${r.status()} ${r.url()}`));
      const problems = () => [...failed, ...consoleErrors.filter((e) => !e.startsWith('Failed to load resource'))];
      const inRussian = (allow: string[]) => Promise.all([assertNoEnglish(page, 'ru', { allow }), assertAccessible(page)]);
      const shot = (name: string) => page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });

      // Fiat: a live card invoice; the hosted page sends the payer to T-Bank's form (the emulator's).
      const card = expectStatus(await invoicing.signed('POST', '/api/v2/invoices', { amount: 2500, paymentMethod: 'card', description: 'Заказ №42' }), 201, 'card invoice').invoice;
      await page.goto(card.paymentLink);
      expect(await page.title()).toContain('Ромашка');
      await inRussian(['Заказ №42']);
      await shot('1-card-invoice');
      await Promise.all([page.waitForURL(card.originalPaymentUrl), page.getByTestId('pay-by-card').click()]);
      await page.locator('button[value="pay"]').click();
      await page.waitForSelector('[data-status="CONFIRMED"]');
      await eventually(async () => {
        await page.goto(card.paymentLink);
        expect(await page.getAttribute('body', 'data-status')).toBe('paid');
      }, 30_000, 500);
      expect(await page.getByTestId('status').textContent()).toBe('ОПЛАЧЕН');
      await inRussian(['Заказ №42']);
      await shot('2-card-paid');

      // Crypto: a live USDT invoice; the page waits, and turns paid by itself when the devnet transfer is deep enough.
      const usdt = expectStatus(await crypto.keyed('POST', '/api/v1/invoices', { amount: 25, currency: 'USDT_ERC20', description: 'Заказ №43' }), 201, 'crypto invoice').data;
      await page.goto(usdt.paymentUrl);
      await page.evaluate('window.sameDocument = true');
      expect(await page.getByTestId('status').textContent()).toBe('Ожидает оплаты');
      expect(await page.getByTestId('address').textContent()).toBe(usdt.address);
      const tokenNames = ['Tether USD', 'Ethereum', 'UTC', 'GMT', 'Заказ №43'];
      await inRussian(tokenNames);
      await shot('3-crypto-waiting');
      await run('pnpm', ['--silent', 'devnet:pay', usdt.address, '25'], { cwd: ROOT, env: env2, timeout: 240_000 });
      await eventually(async () => expect(await page.getByTestId('status').textContent()).toBe('Оплачен'), 120_000, 1000);
      expect(await page.evaluate('window.sameDocument')).toBe(true);
      await inRussian(tokenNames);
      await shot('4-crypto-paid');

      // The merchant, on the same phone: signs in with the live key, finds the card payment, refunds 1000 of it.
      const merchantPage = (await phonePage(browser.context)).page;
      await merchantPage.goto(`${urls2.invoicing}/console/sign-in`);
      await merchantPage.fill('input[name=apiKey]', second.liveKey);
      await Promise.all([merchantPage.waitForURL(`${urls2.invoicing}/console/payments`), merchantPage.click('form[data-testid=sign-in] button')]);
      await Promise.all([merchantPage.waitForURL(`${urls2.invoicing}/console/payments/${card.id}`), merchantPage.click(`a[href="/console/payments/${card.id}"]`)]);
      await merchantPage.fill('[data-testid=refund-form] input[name=amount]', '1000');
      merchantPage.once('dialog', (d) => void d.accept());
      await Promise.all([merchantPage.waitForEvent('load'), merchantPage.click('[data-testid=refund]')]);
      await eventually(async () => {
        const refunds = expectStatus(await invoicing.signed('GET', `/api/v2/invoices/${card.id}/refunds`), 200, 'refunds').data;
        expect(refunds).toEqual([expect.objectContaining({ amount: 1000, status: 'SUCCEEDED' })]);
      }, 30_000, 500);
      await merchantPage.reload();
      expect(await merchantPage.textContent('[data-testid=timeline]')).toContain('Refunded 1000.00 RUB');
      await assertAccessible(merchantPage);
      await merchantPage.screenshot({ path: join(shots, '5-merchant-refunded.png'), fullPage: true });

      // The payer's page says what came back, in Russian.
      await page.goto(card.paymentLink);
      expect(await page.getAttribute('body', 'data-status')).toBe('partly_refunded');
      expect(await page.getByTestId('refunded').textContent()).toMatch(/1\s000,00\s₽ из 2\s500,00\s₽/);
      await inRussian(['Заказ №42']);
      await shot('6-card-partly-refunded');
      expect(problems()).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 600_000);

  it('stops alone: the first stack keeps running', async () => {
    await run('bash', ['scripts/stack.sh', 'stop'], { cwd: ROOT, env: env2, timeout: 240_000 });
    expect(existsSync(join(state2, 'devnet.pid'))).toBe(false);
    for (const url of [urls.invoicing, urls.crypto]) expect((await fetch(`${url}/readyz`)).status).toBe(200);
    await expect(fetch(`${urls2.crypto}/readyz`)).rejects.toThrow();
  }, 300_000);
});
