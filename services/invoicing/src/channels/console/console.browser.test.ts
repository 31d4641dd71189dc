import { createHmac } from 'node:crypto';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { eventually, openBrowser, spawnBuiltService, startReceiver, type Receiver, type RunningService, BUILT_START_MS, artefactsDir } from '@pay/testing';
import { getEndpoint } from '@pay/webhooks';
import { newMerchant, newMerchantIn, startBuiltInvoicing, type TestMerchant } from '../../../test/test-support';

/** Screenshots are kept as test artefacts (gitignored). */
const ARTEFACTS = artefactsDir('console');

// The stack as scripts/stack.sh runs it: the built invoicing service and webhook worker.
let app: Awaited<ReturnType<typeof startBuiltInvoicing>>;
let base: string;
let worker: RunningService;
let receiver: Receiver;
let browser: Awaited<ReturnType<typeof openBrowser>>;
/** A merchant listed in CONSOLE_OPERATORS, which the service reads at start. */
let operator: TestMerchant;

beforeAll(async () => {
  operator = await newMerchantIn(process.env.DATABASE_URL!);
  [app, worker, receiver, browser] = await Promise.all([
    startBuiltInvoicing({ env: { CONSOLE_OPERATORS: operator.merchantId } }),
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

const verifies = (secret: string, r: Receiver['received'][number]) =>
  createHmac('sha256', secret).update(`${r.headers['x-svc-timestamp']}${r.body}`).digest('hex') === r.headers['x-svc-signature'];

async function shot(page: Page, name: string) {
  await page.screenshot({ path: join(ARTEFACTS, `${name}.png`), fullPage: true });
}

it('signs in, creates a webhook, sees a delivery arrive, rotates the secret and resends', async () => {
  const m = await newMerchant(app.deps);
  const page = await browser.context.newPage();
  page.on('dialog', (d) => void d.accept());
  // Every stylesheet, script and image the pages load comes from the built service, and no
  // page is refused; only the API calls this test provokes (a wrong key) may answer 4xx.
  const missing: string[] = [];
  page.on('response', (r) => {
    const type = r.request().resourceType();
    const refused = ['stylesheet', 'script', 'image'].includes(type) ? r.status() !== 200 : !['fetch', 'xhr'].includes(type) && r.status() >= 400;
    if (refused) missing.push(`${r.status()} ${type} ${r.url()}`);
  });

  await page.goto(`${base}/console`);
  expect(new URL(page.url()).pathname).toBe('/console/sign-in');
  await page.fill('input[name=apiKey]', 'sk_test_wrong');
  await page.click('form[data-testid=sign-in] button');
  await eventually(async () => expect(await page.locator('form[data-testid=sign-in] [data-error]').textContent()).toMatch(/malformed/));
  await page.fill('input[name=apiKey]', m.apiKey);
  await Promise.all([page.waitForURL(`${base}/console/payments`), page.click('form[data-testid=sign-in] button')]);
  await Promise.all([page.waitForURL(`${base}/console/webhooks`), page.click('[data-testid=nav-webhooks]')]);
  expect(await page.textContent('[data-testid=mode]')).toBe('Test mode');
  await shot(page, '1-webhooks-empty');

  await page.fill('form[data-testid=create-webhook] input[name=url]', `${receiver.url}/hooks`);
  await page.fill('form[data-testid=create-webhook] input[name=description]', 'Order system');
  await page.check('form[data-testid=create-webhook] input[value="kyc.passed"]');
  await Promise.all([page.waitForURL(/\/console\/webhooks\/[0-9a-f-]{36}$/), page.click('form[data-testid=create-webhook] button')]);
  expect(await page.textContent('[data-testid=webhook-url]')).toBe(`${receiver.url}/hooks`);
  const secret = (await page.textContent('[data-testid=secret]'))!;
  expect(secret).toMatch(/^whsec_/);
  await shot(page, '2-webhook-created');

  await Promise.all([page.waitForLoadState('load'), page.click('[data-testid=send-test]')]);
  await eventually(() => expect(receiver.received).toHaveLength(1), 15_000);
  const first = receiver.received[0]!;
  expect(first.headers['x-svc-event']).toBe('invoice.paid');
  expect(verifies(secret, first)).toBe(true);
  await eventually(async () => {
    await page.reload();
    expect(await page.locator('[data-testid=deliveries] .status.succeeded').count()).toBe(1);
  }, 15_000);
  await shot(page, '3-delivery-succeeded');

  await Promise.all([page.waitForEvent('load'), page.click('form[data-api$="/rotate-secret"] button')]);
  const rotated = (await page.textContent('[data-testid=secret]'))!;
  expect(rotated).not.toBe(secret);
  await Promise.all([page.waitForEvent('load'), page.click('[data-testid=send-test]')]);
  await eventually(() => expect(receiver.received).toHaveLength(2), 15_000);
  expect(verifies(rotated, receiver.received[1]!)).toBe(true);
  expect(verifies(secret, receiver.received[1]!)).toBe(false);

  // Resend the first delivery: same X-SVC-Delivery, one more attempt in its history.
  const firstDelivery = page.locator(`[data-delivery="${first.headers['x-svc-delivery']}"]`);
  await firstDelivery.locator('summary').click();
  await Promise.all([page.waitForEvent('load'), firstDelivery.locator('form[data-api$="/resend"] button').click()]);
  await eventually(() => expect(receiver.received).toHaveLength(3), 15_000);
  expect(receiver.received[2]!.headers['x-svc-delivery']).toBe(first.headers['x-svc-delivery']);
  expect(verifies(rotated, receiver.received[2]!)).toBe(true);
  await eventually(async () => {
    await page.reload();
    const item = page.locator(`[data-delivery="${first.headers['x-svc-delivery']}"]`);
    await item.locator('summary').click();
    expect(await item.locator('table.attempts tbody tr').count()).toBe(2);
    expect(await item.locator('table.attempts').textContent()).toMatch(/\(resend\)/);
    // The header counts both attempts, the resend too.
    expect(await item.locator('[data-testid=delivery-summary]').textContent()).toMatch(/· 2 attempts · HTTP 200$/);
  }, 15_000);
  await shot(page, '4-resent');

  await page.setViewportSize({ width: 390, height: 844 });
  await shot(page, '5-phone');
  expect(missing).toEqual([]);
  await page.close();
}, 90_000);

it("opens the operators' queue dashboard (Bull Board) under the console's session and its CSP", async () => {
  const m = operator;
  const page = await browser.context.newPage();
  const refused: string[] = [];
  page.on('console', (msg) => msg.text().includes('Content Security Policy') && refused.push(msg.text()));
  await page.goto(`${base}/console/sign-in`);
  await page.fill('input[name=apiKey]', m.apiKey);
  await Promise.all([page.waitForURL(`${base}/console/payments`), page.click('form[data-testid=sign-in] button')]);
  await Promise.all([page.waitForURL(`${base}/console/queues`), page.click('[data-testid=nav-queues]')]);
  // The board's React app draws every queue of the catalogue from its own API.
  await eventually(async () => expect(await page.locator('body').textContent()).toContain('invoicing-kyc-checks'), 15_000);
  expect(await page.locator('body').textContent()).toContain('crypto-withdrawals');
  // Its script and styles are allowed; only the web font it links from elsewhere is refused.
  expect(refused.filter((r) => !r.includes('fonts.googleapis.com'))).toEqual([]);
  await shot(page, '6-queues');
  await page.close();
}, 60_000);

it('signs in without script by posting the form, and never lets a key into a URL or the log', async () => {
  const m = await newMerchant(app.deps);
  const page = await browser.context.newPage();
  // As a browser whose script did not load: the form must still post, not GET.
  await page.route('**/console.js', (route) => route.abort());
  const urls: string[] = [];
  page.on('request', (r) => urls.push(`${r.method()} ${r.url()}`));
  await page.goto(`${base}/console/sign-in`);
  await page.fill('input[name=apiKey]', 'sk_test_not_a_key_of_anyone');
  await Promise.all([page.waitForLoadState('load'), page.click('form[data-testid=sign-in] button')]);
  expect(await page.locator('form[data-testid=sign-in] [data-error]').textContent()).not.toBe('');
  await page.fill('input[name=apiKey]', m.apiKey);
  await Promise.all([page.waitForURL(`${base}/console/payments`), page.click('form[data-testid=sign-in] button')]);
  expect(await page.textContent('[data-testid=mode]')).toBe('Test mode');
  expect(urls.filter((u) => u.startsWith('POST ')).map((u) => new URL(u.slice(5)).pathname)).toEqual(['/console/sign-in', '/console/sign-in']);
  expect(urls.filter((u) => u.includes('sk_test_'))).toEqual([]);
  await page.close();

  // A key put in a query string anyway (an old bookmark, a hand-made link) is refused, and never logged.
  for (const url of [`/console/sign-in?apiKey=${m.apiKey}`, `/api/v1/invoices?x-api-key=${m.apiKey}`, `/api/v2/invoices?token=${m.apiKey}`]) {
    const res = await fetch(`${base}${url}`);
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/An API key must never be sent in a URL .*X-Api-Key header/);
  }
  await eventually(() => expect(app.service.logs()).toContain('"statusCode":400'));
  expect(app.service.logs()).not.toContain(m.apiKey);
  expect(app.service.logs()).not.toContain(m.apiKey.slice(8));
}, 60_000);

it('signed in with a live key, makes a webhook that receives live events only, and shows it so', async () => {
  const m = await newMerchant(app.deps, 'live');
  const page = await browser.context.newPage();
  await page.goto(`${base}/console/sign-in`);
  await page.fill('input[name=apiKey]', m.apiKey);
  await Promise.all([page.waitForURL(`${base}/console/payments`), page.click('form[data-testid=sign-in] button')]);
  await Promise.all([page.waitForURL(`${base}/console/webhooks`), page.click('[data-testid=nav-webhooks]')]);
  expect(await page.textContent('[data-testid=mode]')).toBe('Live mode');
  expect(await page.textContent('[data-testid=new-webhook-mode]')).toMatch(/^It will receive live events only/);

  await page.fill('form[data-testid=create-webhook] input[name=url]', `${receiver.url}/live-hooks`);
  await Promise.all([page.waitForURL(/\/console\/webhooks\/[0-9a-f-]{36}$/), page.click('form[data-testid=create-webhook] button')]);
  expect(await page.textContent('[data-testid=webhook-url]')).toBe(`${receiver.url}/live-hooks`);
  expect(await page.textContent('[data-testid=webhook-mode]')).toBe('Live events only');
  const id = new URL(page.url()).pathname.split('/').pop()!;
  await shot(page, '7-live-webhook');

  await page.goto(`${base}/console/webhooks`);
  const card = page.locator('[data-testid=webhooks] li', { has: page.locator(`a[href="/console/webhooks/${id}"]`) });
  expect(await card.locator('[data-testid=webhook-mode]').textContent()).toBe('Live events only');
  // Stored as a live console webhook (found among the live console ones): the dispatcher sends it live events only.
  const stored = await getEndpoint(app.deps.db, app.deps.secrets, { merchantId: m.merchantId, isTest: false }, id);
  expect(stored.mode).toBe('live');
  await page.close();
}, 60_000);
