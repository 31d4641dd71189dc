import { join } from 'node:path';
import { TBankEmulator } from '@pay/tbank-emulator';
import { eventually, openBrowser, phonePage, BUILT_START_MS, artefactsDir } from '@pay/testing';
import { invoiceColumns, invoiceRow } from '../../../test/invoices/store';
import { countAcquirerPayments } from '../../../test/payments/store';
import { newMerchant, startBuiltInvoicing, v2Request, type TestMerchant } from '../../../test/test-support';
import { moscowDay, receiptPng } from '../../../test/receipts/test-fixtures';
import { assertPageInLanguages } from '../../../test/pages';

const ARTIFACTS = artefactsDir('pay-page');
const TERMINAL = 'BrowserTerminal';
const PASSWORD = 'browser-secret';

const emulator = new TBankEmulator({ terminals: { [TERMINAL]: PASSWORD }, retryDelaysMs: [100, 300, 1000] });
// The stack as scripts/stack.sh runs it: the built invoicing bundle (`node dist/main.js`) with
// T-Bank as its live acquirer, here the emulator; the test's own deps only read the database.
let ctx: Awaited<ReturnType<typeof startBuiltInvoicing>>;
let browser: Awaited<ReturnType<typeof openBrowser>>;
let m: TestMerchant;

beforeAll(async () => {
  await emulator.start();
  [ctx, browser] = await Promise.all([
    startBuiltInvoicing({ env: { LIVE_PAYMENT_PROVIDER: 'tbank', TBANK_API_URL: emulator.apiUrl, TBANK_TERMINAL_KEY: TERMINAL, TBANK_PASSWORD: PASSWORD } }),
    openBrowser(),
  ]);
  m = await newMerchant(ctx.deps, 'live');
}, BUILT_START_MS);
afterAll(async () => {
  await browser?.close();
  await ctx?.close();
  await emulator.stop();
});

it('a live card invoice in Chromium: the hosted page sends the payer to the acquirer’s form, the card is typed there, and the page turns PAID', async () => {
  const res = await v2Request(ctx.app, m, 'post', '/api/v2/invoices', { amount: 2500, paymentMethod: 'card', description: 'Live card' });
  expect(res.status).toBe(201);
  const inv = res.body.invoice as { id: string; paymentLink: string; originalPaymentUrl: string };
  const page = await browser.context.newPage();
  await page.setViewportSize({ width: 390, height: 844 });
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(err.message));
  await page.goto(inv.paymentLink);
  expect(await page.locator('input[name="number"]').count()).toBe(0); // no card field of ours in live mode
  await page.screenshot({ path: join(ARTIFACTS, 'live-card-1-hosted.png'), fullPage: true });
  await page.getByTestId('pay-by-card').click();
  await page.waitForURL(inv.originalPaymentUrl);
  await page.locator('button[value="pay"]').click();
  await page.waitForSelector('[data-status="CONFIRMED"]');
  await eventually(async () => expect((await invoiceColumns(ctx.deps.db, inv.id, ['status']))!.status).toBe('PAID'));
  await page.goto(inv.paymentLink);
  expect(await page.getByTestId('status').textContent()).toBe('PAID');
  await page.screenshot({ path: join(ARTIFACTS, 'live-card-2-paid.png'), fullPage: true });
  expect(problems).toEqual([]);
}, 90_000);

it('a live SBP invoice in Chromium: declined (try again opens a fresh QR), under review (another amount taken), refunded in part and in full', async () => {
  const page = await browser.context.newPage();
  await page.setViewportSize({ width: 390, height: 844 });
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(err.message));
  const status = async () => (await page.locator('body').getAttribute('data-status')) ?? '';

  // Declined, and the fresh payment could not be opened at once (its Init lost): the page offers to try again.
  const declined = (await v2Request(ctx.app, m, 'post', '/api/v2/invoices', { amount: 1500, description: 'Declined first' })).body.invoice as { id: string; paymentLink: string; qrPayload: string };
  const first = emulator.paymentsOfOrder(declined.id)[0]!;
  emulator.faults.dropRequest.add('Init');
  emulator.reject(first.paymentId);
  await eventually(async () => expect(await countAcquirerPayments(ctx.deps.db, declined.id)).toBe(2));
  await page.goto(declined.paymentLink);
  await eventually(async () => {
    await page.reload();
    expect(await status()).toBe('declined');
  });
  expect(await page.getByTestId('declined').isVisible()).toBe(true);
  expect(await page.getByTestId('qr').count()).toBe(0);
  await page.screenshot({ path: join(ARTIFACTS, 'live-sbp-1-declined.png'), fullPage: true });
  // Each state in Russian and Kazakh too: no English, no accessibility violation (issue 31).
  const inLanguages = async (link: string, name: string, description: string | null) => {
    await assertPageInLanguages(page, link, { allow: [m.companyName, ...(description ? [description] : [])], shots: { dir: ARTIFACTS, name } });
    await page.goto(link);
  };
  await inLanguages(declined.paymentLink, 'live-sbp-1-declined', 'Declined first');
  await page.getByTestId('retry').click();
  await page.waitForSelector('[data-testid="qr"]');
  expect(await status()).toBe('pending');
  expect(await page.getByTestId('declined').isVisible()).toBe(true); // the last one was declined: this is a fresh QR
  const fresh = emulator.paymentsOfOrder(declined.id).at(-1)!;
  expect(fresh.paymentId).not.toBe(first.paymentId);
  expect(await page.getByTestId('open-bank').getAttribute('href')).toBe(`${emulator.url}/sbp/${fresh.paymentId}`);
  await page.screenshot({ path: join(ARTIFACTS, 'live-sbp-2-try-again.png'), fullPage: true });
  await inLanguages(declined.paymentLink, 'live-sbp-2-try-again', 'Declined first');

  // Another amount taken: under review, no QR to pay again.
  const wrong = (await v2Request(ctx.app, m, 'post', '/api/v2/invoices', { amount: 1200 })).body.invoice as { id: string; paymentLink: string };
  emulator.pay(emulator.paymentsOfOrder(wrong.id)[0]!.paymentId, { method: 'sbp', amount: 100000 });
  await page.goto(wrong.paymentLink);
  await eventually(async () => {
    await page.reload();
    expect(await status()).toBe('review');
  });
  expect(await page.getByTestId('under-review').isVisible()).toBe(true);
  expect(await page.getByTestId('qr').count()).toBe(0);
  await page.screenshot({ path: join(ARTIFACTS, 'live-sbp-3-review.png'), fullPage: true });
  await inLanguages(wrong.paymentLink, 'live-sbp-3-review', null);

  // Paid, then refunded in part, then in full.
  const paid = (await v2Request(ctx.app, m, 'post', '/api/v2/invoices', { amount: 1000 })).body.invoice as { id: string; paymentLink: string };
  emulator.pay(emulator.paymentsOfOrder(paid.id)[0]!.paymentId, { method: 'sbp', payerBank: 'Sber' });
  await eventually(async () => expect((await invoiceColumns(ctx.deps.db, paid.id, ['status']))!.status).toBe('PAID'));
  expect((await v2Request(ctx.app, m, 'post', `/api/v2/invoices/${paid.id}/refunds`, { amount: 250 })).status).toBe(201);
  await page.goto(paid.paymentLink);
  expect(await status()).toBe('partly_refunded');
  expect(await page.getByTestId('status').textContent()).toBe('PARTLY REFUNDED');
  await page.screenshot({ path: join(ARTIFACTS, 'live-sbp-4-partly-refunded.png'), fullPage: true });
  await inLanguages(paid.paymentLink, 'live-sbp-4-partly-refunded', null);
  expect((await v2Request(ctx.app, m, 'post', `/api/v2/invoices/${paid.id}/refunds`, {})).status).toBe(201);
  await page.reload();
  expect(await status()).toBe('refunded');
  expect(await page.getByTestId('status').textContent()).toBe('REFUNDED');
  expect(await page.content()).not.toContain('Payment received');
  await page.screenshot({ path: join(ARTIFACTS, 'live-sbp-5-refunded.png'), fullPage: true });
  await inLanguages(paid.paymentLink, 'live-sbp-5-refunded', null);
  expect(problems).toEqual([]);
}, 120_000);

it('a live receiptRequired SBP invoice in Chromium: paid at the acquirer, the page turns to "payment received, upload your receipt"; the approved receipt makes it PAID', async () => {
  const { page, problems } = await phonePage(browser.context);
  const status = async () => (await page.locator('body').getAttribute('data-status')) ?? '';
  // A receipt of its own (one file proves one payment, in this database across runs too): its amount and time vary.
  const rubles = 1700 + Math.floor(Math.random() * 200);
  const inv = (await v2Request(ctx.app, m, 'post', '/api/v2/invoices', { amount: rubles, receiptRequired: true, description: 'Receipt required' })).body.invoice as { id: string; paymentLink: string };
  const receipt = await receiptPng(browser.context, { amount: `1 ${String(rubles).slice(1)},00 ₽`, date: `${moscowDay(0)} ${new Date().toISOString().slice(11, 16)}`, bank: 'Сбербанк' });

  await page.goto(inv.paymentLink);
  expect(await status()).toBe('pending');
  expect(await page.getByTestId('qr').isVisible()).toBe(true);
  await page.screenshot({ path: join(ARTIFACTS, 'live-receipt-1-pay.png'), fullPage: true });

  // The payer pays in the bank app; the open page learns it by polling and reloads itself.
  emulator.pay(emulator.paymentsOfOrder(inv.id)[0]!.paymentId, { method: 'sbp', payerBank: 'Sber' });
  await page.waitForSelector('body[data-status="receipt_needed"]', { timeout: 30_000 });
  expect(await page.getByTestId('payment-received').textContent()).toMatch(/payment has been received\. Do not pay again: upload the receipt/);
  expect(await page.getByTestId('qr').count()).toBe(0);
  expect(await page.locator('[data-receipt-form]').count()).toBe(1);
  expect((await invoiceColumns(ctx.deps.db, inv.id, ['status']))!.status).toBe('PENDING');
  await page.screenshot({ path: join(ARTIFACTS, 'live-receipt-2-payment-received.png'), fullPage: true });
  await assertPageInLanguages(page, inv.paymentLink, { allow: [m.companyName, 'Receipt required'], shots: { dir: ARTIFACTS, name: 'live-receipt-2-payment-received' } });
  await page.goto(inv.paymentLink);

  await page.getByTestId('receipt-file').setInputFiles({ name: 'IMG_2001.png', mimeType: 'image/png', buffer: receipt });
  await Promise.all([page.waitForURL(inv.paymentLink), page.getByTestId('upload-receipt').click()]);
  await page.waitForSelector('[data-testid="status"]:text("PAID")', { timeout: 90_000 });
  const paid = await invoiceRow(ctx.deps.db, inv.id);
  expect(paid).toMatchObject({ status: 'PAID', payer_bank: 'Sber' });
  expect(await page.locator('[data-receipt-form]').count()).toBe(0);
  await page.screenshot({ path: join(ARTIFACTS, 'live-receipt-3-paid.png'), fullPage: true });
  expect(problems).toEqual([]);
}, 150_000);
