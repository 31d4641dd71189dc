import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Papa from 'papaparse';
import type { Page } from 'playwright-core';
import { TBankEmulator } from '@pay/tbank-emulator';
import { artefactsDir, assertAccessible, BUILT_START_MS, eventually, openBrowser } from '@pay/testing';
import { newMerchant, startBuiltInvoicing, tbankEnv, v2Request, type TestMerchant } from '../../../test/test-support';
import { CSV_COLUMNS } from './payments';

const ARTEFACTS = artefactsDir('console');
const TERMINAL = 'ConsoleLiveTerminal';
const PASSWORD = 'console-live-secret';

// The stack as scripts/stack.sh runs it (the built invoicing bundle), with T-Bank as its live
// acquirer, here the protocol emulator: live money, so the console's mode switch and the
// payment review queue (money an invoice did not simply take) have something real to show.
const emulator = new TBankEmulator({ terminals: { [TERMINAL]: PASSWORD }, retryDelaysMs: [100, 300, 1000] });
let app: Awaited<ReturnType<typeof startBuiltInvoicing>>;
let base: string;
let browser: Awaited<ReturnType<typeof openBrowser>>;

beforeAll(async () => {
  await emulator.start();
  [app, browser] = await Promise.all([startBuiltInvoicing({ env: tbankEnv(emulator, TERMINAL, PASSWORD) }), openBrowser()]);
  base = app.base;
}, BUILT_START_MS);

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await emulator.stop();
});

const WIDTHS = [1280, 390] as const;

/** axe-core finds nothing at either width, nothing is wider than the screen, and a screenshot of each is kept. */
async function checkPage(page: Page, name: string) {
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    await assertAccessible(page);
    expect([name, width, await page.evaluate<number>('document.documentElement.scrollWidth')]).toEqual([name, width, width]);
    await page.screenshot({ path: join(ARTEFACTS, `payments-live-${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

/** A page of its own, signed in with `apiKey` through the sign-in form; confirmations are accepted and recorded. */
async function signedIn(apiKey: string) {
  await browser.context.clearCookies();
  const page = await browser.context.newPage();
  const problems: string[] = [];
  const asked: string[] = [];
  page.on('pageerror', (err) => problems.push(err.message));
  page.on('dialog', (d) => {
    asked.push(d.message());
    void d.accept();
  });
  await page.goto(`${base}/console/sign-in`);
  await page.fill('input[name=apiKey]', apiKey);
  await Promise.all([page.waitForURL(`${base}/console/payments`), page.click('form[data-testid=sign-in] button')]);
  return { page, problems, asked };
}

const liveOf = (m: TestMerchant): TestMerchant => ({ ...m, apiKey: m.liveKey, isTest: false });

async function create(who: TestMerchant, body: Record<string, unknown>) {
  const res = await v2Request(app.app, who, 'post', '/api/v2/invoices', body);
  expect(res.status).toBe(201);
  return res.body.invoice as { id: string; invoiceNumber: string };
}

const invoiceOf = async (who: TestMerchant, id: string) => (await v2Request(app.app, who, 'get', `/api/v2/invoices/${id}`)).body.invoice;

it('a live key’s dashboard switches its payments list to test mode and back, exports and refunds test data there; a test key is refused live', async () => {
  const m = await newMerchant(app.deps);
  const live = liveOf(m);
  const liveCoat = await create(live, { amount: 700, description: 'Live coat' });
  emulator.pay(emulator.paymentsOfOrder(liveCoat.id)[0]!.paymentId, { method: 'sbp', payerBank: 'Sber' });
  const testScarf = await create(m, { amount: 120.5, description: 'Test scarf', customerEmail: 'ann@example.ru' });
  expect((await v2Request(app.app, m, 'post', `/api/v2/sandbox/invoices/${testScarf.id}/pay`, { payerBank: 'T-Bank' })).status).toBe(200);
  await create(m, { amount: 3, description: 'Test gloves', paymentMethod: 'card' });
  await eventually(async () => expect((await invoiceOf(live, liveCoat.id)).status).toBe('PAID'));

  const { page, problems, asked } = await signedIn(m.liveKey);
  // Live by default: the live key's own mode.
  expect(await page.textContent('[data-testid=payments-total]')).toBe('1 payment');
  expect(await page.locator(`[data-invoice="${liveCoat.id}"]`).count()).toBe(1);
  expect(await page.inputValue('select[name=mode]')).toBe('live');
  await checkPage(page, 'list-live');

  // Switched to test: the test invoices, and links that stay in test mode.
  await page.selectOption('select[name=mode]', 'test');
  await Promise.all([page.waitForURL(/mode=test/), page.click('[data-testid=payment-filters] button')]);
  expect(await page.textContent('[data-testid=payments-total]')).toBe('2 payments');
  expect(await page.locator(`[data-invoice="${liveCoat.id}"]`).count()).toBe(0);
  expect(await page.textContent('[data-testid=list-mode]')).toBe('test');
  await checkPage(page, 'list-test');
  await page.selectOption('select[name=paymentMethod]', 'sbp');
  await Promise.all([page.waitForURL(/paymentMethod=sbp.*mode=test/), page.click('[data-testid=payment-filters] button')]);
  expect(await page.locator('[data-testid=payments] tbody tr').count()).toBe(1);

  // The CSV of what is shown: test rows only.
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=export-csv]')]);
  expect(download.suggestedFilename()).toBe('invoices-test.csv');
  const rows = Papa.parse<string[]>(readFileSync((await download.path())!, 'utf8').trimEnd()).data.slice(1);
  expect(rows.map((r) => [r[0], r[CSV_COLUMNS.indexOf('livemode')]])).toEqual([[testScarf.id, 'false']]);

  // The test invoice, opened from the list, refunded in part from this live session.
  await Promise.all([page.waitForURL(`${base}/console/payments/${testScarf.id}?mode=test`), page.click(`a[href="/console/payments/${testScarf.id}?mode=test"]`)]);
  expect(await page.textContent('[data-testid=viewing-mode]')).toBe('Test data');
  await checkPage(page, 'invoice-test');
  await page.fill('[data-testid=refund-form] input[name=amount]', '20.50');
  await Promise.all([page.waitForEvent('load'), page.click('[data-testid=refund]')]);
  expect(asked).toEqual([`Refund 20.50 RUB of ${testScarf.invoiceNumber} to the payer? This cannot be undone.`]);
  expect(await page.textContent('[data-testid=refunded]')).toBe('20.50 RUB');
  expect(await invoiceOf(m, testScarf.id)).toMatchObject({ status: 'PAID', refundedAmount: 20.5 });
  expect(await invoiceOf(live, liveCoat.id)).toMatchObject({ status: 'PAID', refundedAmount: 0 });
  // Back to the list, still in test mode; then live again.
  await Promise.all([page.waitForURL(`${base}/console/payments?mode=test`), page.click('a[href="/console/payments?mode=test"]')]);
  await page.selectOption('select[name=mode]', 'live');
  await Promise.all([page.waitForURL(/mode=live/), page.click('[data-testid=payment-filters] button')]);
  expect(await page.locator(`[data-invoice="${liveCoat.id}"]`).count()).toBe(1);
  expect(problems).toEqual([]);
  await page.close();

  // A test key's session: test data only; live is a refusal that says why, showing no live payment.
  const t = await signedIn(m.apiKey);
  expect(await t.page.textContent('[data-testid=list-mode]')).toBe('Test');
  expect(await t.page.locator('select[name=mode]').count()).toBe(0);
  expect(await t.page.textContent('[data-testid=payments-total]')).toBe('2 payments');
  await checkPage(t.page, 'list-test-key');
  const refused = await t.page.goto(`${base}/console/payments?mode=live`);
  expect(refused!.status()).toBe(403);
  expect(await t.page.textContent('body')).toMatch(/signed in with a test key: it shows test data only\. Sign in with a live key/);
  expect(await t.page.content()).not.toContain(liveCoat.invoiceNumber);
  await checkPage(t.page, 'refused-live');
  expect(t.problems).toEqual([]);
  await t.page.close();
}, 150_000);

it('the review queue in Chromium: another amount taken opens a review; Accept makes the invoice PAID, Refund returns the money at the acquirer', async () => {
  const m = liveOf(await newMerchant(app.deps));
  // Each payer paid another amount than its invoice asked: two reviews (amount_mismatch).
  const kept = await create(m, { amount: 1200, description: 'Kept' });
  const returned = await create(m, { amount: 500, description: 'Returned' });
  const keptPayment = emulator.paymentsOfOrder(kept.id)[0]!;
  const returnedPayment = emulator.paymentsOfOrder(returned.id)[0]!;
  emulator.pay(keptPayment.paymentId, { method: 'sbp', amount: 100000 });
  emulator.pay(returnedPayment.paymentId, { method: 'sbp', amount: 45000 });
  await eventually(async () => {
    expect((await invoiceOf(m, kept.id)).review).toMatchObject({ reason: 'amount_mismatch', amount: 1000, status: 'OPEN' });
    expect((await invoiceOf(m, returned.id)).review).toMatchObject({ reason: 'amount_mismatch', amount: 450, status: 'OPEN' });
  });

  const { page, problems, asked } = await signedIn(m.apiKey);
  expect(await page.textContent('[data-testid=reviews-waiting]')).toMatch(/^2 payments await your review/);
  await Promise.all([page.waitForURL(`${base}/console/payment-reviews`), page.click('[data-testid=nav-payment-reviews]')]);
  const card = (id: string) => page.locator(`[data-payment-review="${id}"]`);
  expect(await page.locator('[data-payment-review]').count()).toBe(2);
  expect(await card(kept.id).locator('[data-testid=review-amount]').textContent()).toBe('1000.00 RUB');
  expect(await card(kept.id).locator('h2').textContent()).toContain('Another amount was taken');
  await checkPage(page, 'reviews-open');

  // Accept: the money stays, the invoice is PAID by the merchant's word.
  await Promise.all([page.waitForEvent('load'), card(kept.id).locator('[data-testid=accept]').click()]);
  expect(asked).toEqual(['Keep this money? An unpaid invoice becomes PAID.']);
  expect(await invoiceOf(m, kept.id)).toMatchObject({ status: 'PAID', review: null });
  expect(await card(kept.id).count()).toBe(0);
  expect(await page.locator('[data-payment-review]').count()).toBe(1);
  await checkPage(page, 'reviews-one-left');

  // Refund: the acquirer returns what that payment took; the invoice itself is untouched (still payable).
  await Promise.all([page.waitForEvent('load'), card(returned.id).locator('[data-testid=refund]').click()]);
  expect(asked).toEqual(['Keep this money? An unpaid invoice becomes PAID.', 'Refund this money to the payer?']);
  expect(emulator.payments.get(returnedPayment.paymentId)).toMatchObject({ status: 'REFUNDED', remaining: 0 });
  expect(await invoiceOf(m, returned.id)).toMatchObject({ status: 'PENDING', review: null, refundedAmount: 0 });
  expect(await page.textContent('[data-testid=no-payment-reviews]')).toBe('Nothing to review.');
  await checkPage(page, 'reviews-done');

  expect(problems).toEqual([]);
  await page.close();
}, 150_000);
