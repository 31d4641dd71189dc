import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { TBankEmulator } from '@pay/tbank-emulator';
import { eventually, openBrowser } from '@pay/testing';
import { newMerchant, startBuiltInvoicing, v2Request, type TestMerchant } from '../../../test/test-support';

const ARTIFACTS = join(__dirname, '..', '..', '..', '..', '..', 'artefacts', 'pay-page');
const TERMINAL = 'BrowserTerminal';
const PASSWORD = 'browser-secret';

const emulator = new TBankEmulator({ terminals: { [TERMINAL]: PASSWORD }, retryDelaysMs: [100, 300, 1000] });
// The stack as scripts/stack.sh runs it: the built invoicing bundle (`node dist/main.js`) with
// T-Bank as its live acquirer, here the emulator; the test's own deps only read the database.
let ctx: Awaited<ReturnType<typeof startBuiltInvoicing>>;
let browser: Awaited<ReturnType<typeof openBrowser>>;
let m: TestMerchant;

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  await emulator.start();
  [ctx, browser] = await Promise.all([
    startBuiltInvoicing({ env: { LIVE_PAYMENT_PROVIDER: 'tbank', TBANK_API_URL: emulator.apiUrl, TBANK_TERMINAL_KEY: TERMINAL, TBANK_PASSWORD: PASSWORD } }),
    openBrowser(),
  ]);
  m = await newMerchant(ctx.deps, 'live');
}, 120_000);
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
  await eventually(async () => expect((await ctx.deps.db.invoice.findUniqueOrThrow({ where: { id: inv.id } })).status).toBe('PAID'));
  await page.goto(inv.paymentLink);
  expect(await page.getByTestId('status').textContent()).toBe('PAID');
  await page.screenshot({ path: join(ARTIFACTS, 'live-card-2-paid.png'), fullPage: true });
  expect(problems).toEqual([]);
}, 90_000);
