import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Papa from 'papaparse';
import type { Page } from 'playwright-core';
import { artefactsDir, assertAccessible, BUILT_START_MS, eventually, openBrowser, spawnBuiltService, startReceiver, type Receiver, type RunningService } from '@pay/testing';
import { consoleSignIn, newMerchant, startBuiltInvoicing, v2Request, type TestMerchant } from '../../../test/test-support';

const ARTEFACTS = artefactsDir('console');

// The stack as scripts/stack.sh runs it: the built invoicing service and webhook worker.
let app: Awaited<ReturnType<typeof startBuiltInvoicing>>;
let base: string;
let worker: RunningService;
let receiver: Receiver;
let browser: Awaited<ReturnType<typeof openBrowser>>;

beforeAll(async () => {
  [app, worker, receiver, browser] = await Promise.all([
    startBuiltInvoicing(),
    spawnBuiltService('webhook-worker', { WEBHOOK_POLL_INTERVAL_MS: '50' }),
    startReceiver({ status: 200, body: '{"received":true}' }),
    openBrowser(),
  ]);
  base = app.base;
}, BUILT_START_MS);

afterAll(async () => {
  await browser?.close();
  await receiver?.close();
  await worker?.stop();
  await app?.close();
});

const WIDTHS = [1280, 390] as const;

async function shot(page: Page, name: string) {
  await page.screenshot({ path: join(ARTEFACTS, `${name}.png`), fullPage: true });
}

/** axe-core finds nothing, and nothing is wider than the screen (no sideways scrolling on a phone). */
async function checkPage(page: Page, name: string) {
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    await assertAccessible(page);
    expect([name, width, await page.evaluate<number>('document.documentElement.scrollWidth')]).toEqual([name, width, width]);
    await shot(page, `payments-${name}-${width}`);
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

async function create(m: TestMerchant, body: Record<string, unknown>) {
  const res = await v2Request(app.app, m, 'post', '/api/v2/invoices', body);
  expect(res.status).toBe(201);
  return res.body.invoice as { id: string; invoiceNumber: string };
}

it('a merchant finds a payment, exports the list, and refunds part of it from the dashboard; the refund and its webhook show in the timeline', async () => {
  const m = await newMerchant(app.deps);
  const { agent, csrf } = await consoleSignIn(base, m.apiKey);
  expect((await agent.post('/console/api/webhooks').set('X-CSRF-Token', csrf).send({ url: `${receiver.url}/hooks`, events: ['invoice.paid', 'invoice.refunded'] })).status).toBe(201);

  const paid = await create(m, { amount: 1490.9, description: 'Warm blanket', customerEmail: 'ann@example.ru', customerName: 'Ann Lee' });
  expect((await v2Request(app.app, m, 'post', `/api/v2/sandbox/invoices/${paid.id}/pay`, { payerBank: 'T-Bank' })).status).toBe(200);
  const card = await create(m, { amount: 300, description: 'Socks', paymentMethod: 'card' });
  await create(m, { amount: 20, description: '=HYPERLINK("http://evil.example","open me")', customerName: 'Smith, "Jr"' });
  await eventually(() => expect(receiver.received.map((r) => r.headers['x-svc-event'])).toEqual(['invoice.paid']), 15_000);

  const page = await browser.context.newPage();
  const problems: string[] = [];
  page.on('console', (msg) => msg.type() === 'error' && !/Failed to load resource: the server responded with a status of 422/.test(msg.text()) && problems.push(msg.text()));
  page.on('pageerror', (err) => problems.push(err.message));
  await page.goto(`${base}/console/sign-in`);
  await page.fill('input[name=apiKey]', m.apiKey);
  // Sign-in lands on the payments list (the console's HOME).
  await Promise.all([page.waitForURL(`${base}/console/payments`), page.click('form[data-testid=sign-in] button')]);
  expect(await page.textContent('[data-testid=payments-total]')).toBe('3 payments');
  expect(await page.locator('[data-testid=payments] tbody tr').count()).toBe(3);
  await checkPage(page, 'list');

  // Filter by method, then search: the page's GET form, the API's filters.
  await page.selectOption('select[name=paymentMethod]', 'card');
  await Promise.all([page.waitForURL(/paymentMethod=card/), page.click('[data-testid=payment-filters] button')]);
  expect(await page.locator('[data-testid=payments] tbody tr').count()).toBe(1);
  expect(await page.locator(`[data-invoice="${card.id}"]`).count()).toBe(1);
  await page.selectOption('select[name=paymentMethod]', '');
  await page.fill('input[name=search]', 'ANN@EXAMPLE');
  await Promise.all([page.waitForURL(/search=ANN%40EXAMPLE/), page.click('[data-testid=payment-filters] button')]);
  expect(await page.locator('[data-testid=payments] tbody tr').count()).toBe(1);
  expect(await page.locator(`[data-invoice="${paid.id}"]`).count()).toBe(1);
  await checkPage(page, 'search');

  // The CSV of the whole list: a download, formulas defused.
  await page.goto(`${base}/console/payments`);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=export-csv]')]);
  const rows = Papa.parse<string[]>(readFileSync((await download.path())!, 'utf8').trimEnd()).data;
  expect(rows).toHaveLength(4);
  expect(rows.map((r) => r[11])).toEqual(['description', "'=HYPERLINK(\"http://evil.example\",\"open me\")", 'Socks', 'Warm blanket']);
  expect(rows[1]![10]).toBe('Smith, "Jr"');

  // The invoice: its timeline, then a partial refund typed and confirmed.
  await Promise.all([page.waitForURL(`${base}/console/payments/${paid.id}`), page.click(`a[href="/console/payments/${paid.id}"]`)]);
  expect(await page.locator('[data-testid=timeline] > li').evaluateAll((lis) => lis.map((li) => li.getAttribute('data-kind')))).toEqual(['created', 'paid', 'webhook']);
  expect(await page.textContent('[data-testid=timeline] > li[data-kind=webhook]')).toMatch(/invoice\.paid.*1 attempt · last HTTP 200/s);
  await checkPage(page, 'invoice');

  await page.fill('[data-testid=refund-form] input[name=amount]', '250.50');
  await page.fill('[data-testid=refund-form] input[name=reason]', 'One blanket returned');
  const asked: string[] = [];
  page.once('dialog', (d) => {
    asked.push(d.message());
    void d.accept();
  });
  await Promise.all([page.waitForEvent('load'), page.click('[data-testid=refund]')]);
  expect(asked).toEqual([`Refund 250.50 RUB of ${paid.invoiceNumber} to the payer? This cannot be undone.`]);
  expect(await page.textContent('[data-testid=refunded]')).toBe('250.50 RUB');
  expect(await page.textContent('[data-testid=timeline]')).toContain('Refunded 250.50 RUB');
  expect(await page.textContent('[data-testid=timeline]')).toContain('Reason: One blanket returned');
  expect(await page.getAttribute('[data-testid=refund-form] input[name=amount]', 'max')).toBe('1240.40');
  await eventually(async () => {
    await page.reload();
    const hooks = await page.locator('[data-testid=timeline] > li[data-kind=webhook]').allTextContents();
    expect(hooks.map((h) => h.replace(/\s+/g, ' '))).toEqual([expect.stringMatching(/invoice\.paid.*last HTTP 200/), expect.stringMatching(/invoice\.refunded.*1 attempt · last HTTP 200/)]);
  }, 15_000);
  const refunds = (await v2Request(app.app, m, 'get', `/api/v2/invoices/${paid.id}/refunds`)).body.data;
  expect(refunds).toEqual([expect.objectContaining({ amount: 250.5, status: 'SUCCEEDED', reason: 'One blanket returned' })]);
  await checkPage(page, 'refunded');

  // A refusal is said in the page: the rest was refunded elsewhere (the API) while this page was open.
  expect((await v2Request(app.app, m, 'post', `/api/v2/invoices/${paid.id}/refunds`, {})).status).toBe(201);
  page.once('dialog', (d) => void d.accept());
  await page.fill('[data-testid=refund-form] input[name=amount]', '10');
  await page.click('[data-testid=refund]');
  await eventually(async () => expect(await page.textContent('[data-testid=refund-form] [data-error]')).toMatch(/already refunded in full/));
  expect(await page.getAttribute('[data-testid=refund-form] [data-error]', 'role')).toBe('alert');
  await page.reload();
  expect(await page.textContent('[data-testid=no-refund]')).toBe('Refunded in full.');

  // The review queue, from the navigation: nothing awaits here (the sandbox takes what it is asked).
  await Promise.all([page.waitForURL(`${base}/console/payment-reviews`), page.click('[data-testid=nav-payment-reviews]')]);
  expect(await page.textContent('[data-testid=no-payment-reviews]')).toBe('Nothing to review.');
  await checkPage(page, 'reviews');
  expect(problems).toEqual([]);
  await page.close();
}, 120_000);
