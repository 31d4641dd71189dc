import { join } from 'node:path';
import type { Page } from 'playwright-core';
import {
  apiClient,
  artefactsDir,
  assertAccessible,
  BUILT_START_MS,
  eventually,
  expectStatus,
  openBrowser,
  registerCryptoMerchant,
  spawnBuiltService,
  type ApiClient,
  type RegisteredMerchant,
  type RunningService,
} from '@pay/testing';
import { startBuiltInvoicing } from '../../../test/test-support';

/**
 * The console's crypto section on the built services, both running as scripts/stack.sh runs
 * them: the data is made through crypto's merchant API and its sandbox chain (invoices,
 * transfers confirmed by crypto's own tracker, withdrawals sent by its worker), and the
 * console reads it back through the same API with the merchant's console session.
 */
const ARTEFACTS = artefactsDir('console-crypto');
const TRON = 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7';
/** The sandbox sends a withdrawal to the zero address and fails it on chain. */
const TRON_ZERO = 'T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb';
const TRANSFERS = 21;

let crypto: RunningService;
let app: Awaited<ReturnType<typeof startBuiltInvoicing>>;
let browser: Awaited<ReturnType<typeof openBrowser>>;
let m: RegisteredMerchant;
let merchant: ApiClient;
let withdrawalNumbers: { completed: string; failed: string };

beforeAll(async () => {
  crypto = await spawnBuiltService('crypto');
  [app, browser, m] = await Promise.all([startBuiltInvoicing({ env: { CRYPTO_BASE_URL: crypto.url } }), openBrowser(), registerCryptoMerchant(crypto.url, 'Crypto Shop')]);
  merchant = apiClient(crypto.url, m, 'crypto', { retryUnavailable: 5 });

  // 21 paid invoices (one more than a page): 10, 11, … 29 USDT on Tron, and 20 USDC on Ethereum.
  const pay = async (currency: string, amount: number) => {
    const invoice = expectStatus(await merchant.keyed('POST', '/api/v1/invoices', { amount, currency }), 201, 'invoice').data;
    expectStatus(await merchant.keyed('POST', '/api/v1/sandbox/transactions', { invoiceId: invoice.id, amount }), 201, 'sandbox transfer');
  };
  for (let i = 0; i < TRANSFERS - 1; i++) await pay('USDT_TRC20', 10 + i);
  await pay('USDC_ERC20', 20);
  await eventually(async () => {
    const list = expectStatus(await merchant.keyed('GET', '/api/v1/transactions?pageSize=100'), 200, 'transactions').data;
    expect(list.items.filter((t: { status: string }) => t.status === 'Confirmed')).toHaveLength(TRANSFERS);
  }, 60_000, 100);

  // One withdrawal that completes, one the sandbox fails (its amount comes back).
  const withdraw = async (toAddress: string, amount: number) =>
    expectStatus(await merchant.signed('POST', '/api/v1/withdrawals', { toAddress, amount, currency: 'USDT_TRC20' }), 201, 'withdrawal').data;
  const [completed, failed] = [await withdraw(TRON, 50), await withdraw(TRON_ZERO, 10)];
  await eventually(async () => {
    const list = expectStatus(await merchant.keyed('GET', '/api/v1/withdrawals'), 200, 'withdrawals').data;
    expect(list.items.map((w: { status: string }) => w.status).sort()).toEqual(['Completed', 'Failed']);
  }, 60_000, 100);
  withdrawalNumbers = { completed: completed.withdrawalNumber, failed: failed.withdrawalNumber };
}, BUILT_START_MS);

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await crypto?.stop();
});

async function shot(page: Page, name: string) {
  await page.screenshot({ path: join(ARTEFACTS, `${name}.png`), fullPage: true });
}

/** Nothing on the page is wider than the window: wide tables scroll inside their own region. */
async function fitsWidth(page: Page) {
  const [scroll, client] = (await page.evaluate('[document.documentElement.scrollWidth, document.documentElement.clientWidth]')) as [number, number];
  expect(scroll).toBeLessThanOrEqual(client);
}

const cells = (page: Page, row: string) => page.locator(`${row} > *`).allTextContents();

it('shows balances, paged transactions and withdrawals with fee and status, as the API gives them, at 1280 and 390 px with no axe violation', async () => {
  const page = await browser.context.newPage();
  const problems: string[] = [];
  page.on('console', (msg) => msg.type() === 'error' && problems.push(msg.text()));
  page.on('pageerror', (err) => problems.push(err.message));
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${app.base}/console/sign-in`);
  await page.fill('input[name=apiKey]', m.apiKey);
  await Promise.all([page.waitForURL(/\/console\/(?!sign-in)/), page.click('form[data-testid=sign-in] button')]);

  // Balances, from the console's navigation.
  await Promise.all([page.waitForURL(`${app.base}/console/crypto`), page.click('[data-testid=nav-crypto]')]);
  expect(await page.getAttribute('[data-testid=nav-crypto]', 'aria-current')).toBe('page');
  const api = expectStatus(await merchant.keyed('GET', '/api/v1/withdrawals/balance'), 200, 'balance').data;
  const usdt = api.balances.find((b: { currency: string }) => b.currency === 'USDT_TRC20');
  // 10 + … + 29 = 390 paid, 1% fee: 386.1; 50 withdrawn (the failed 10 came back).
  expect(usdt).toMatchObject({ available: 336.1, pending: 0, total: 336.1 });
  expect(await cells(page, '[data-currency=USDT_TRC20]')).toEqual(['USDT Tether USD', 'Tron', '336.10', '0.00', '336.10']);
  expect(await cells(page, '[data-currency=USDC_ERC20]')).toEqual(['USDC USD Coin', 'Ethereum', '19.80', '0.00', '19.80']);
  expect(await page.locator('[data-testid=crypto-balances] tbody tr').count()).toBe(api.balances.length);
  expect(await page.textContent('[data-testid=crypto-total-usd]')).toBe(`${api.totalUsdValue.toFixed(2)} USD`);
  await assertAccessible(page);
  await shot(page, '1-balances-1280');

  // Transactions: 21, newest first, 20 on the first page.
  await Promise.all([page.waitForURL(/\/console\/crypto\/transactions$/), page.click('[data-testid=crypto-tab-transactions]')]);
  expect(await page.locator('[data-testid=crypto-transactions] tbody tr').count()).toBe(20);
  expect(await page.textContent('[data-testid=page-of]')).toBe('Page 1 of 2');
  const newest = await cells(page, '[data-testid=crypto-transactions] tbody tr:first-child');
  expect(newest.slice(0, 5)).toEqual(['20.00 USDC', 'Confirmed', expect.stringMatching(/^\d+ of 12$/), expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d$/), 'Ethereum']);
  await assertAccessible(page);
  await shot(page, '2-transactions-1280');
  await Promise.all([page.waitForURL(/transactions\?page=2$/), page.click('[data-testid=next-page]')]);
  expect(await page.textContent('[data-testid=page-of]')).toBe('Page 2 of 2');
  const oldest = await cells(page, '[data-testid=crypto-transactions] tbody tr');
  expect(oldest.slice(0, 3)).toEqual(['10.00 USDT', 'Confirmed', expect.stringMatching(/^\d+ of 19$/)]);
  expect(oldest[4]).toBe('Tron');

  // Withdrawals: amount, fee, what was sent, and status (with the reason of a failure).
  await Promise.all([page.waitForURL(/\/console\/crypto\/withdrawals$/), page.click('[data-testid=crypto-tab-withdrawals]')]);
  const row = (n: string) => page.locator('[data-testid=crypto-withdrawals] tbody tr', { has: page.locator(`th:text-is("${n}")`) });
  expect(await row(withdrawalNumbers.completed).locator('td').allTextContents()).toEqual(['50.00 USDT Tron', '0.50', '49.50', 'Completed', expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d$/), 'TLa2f6…YjU7', expect.stringMatching(/^\w{6}…\w{4}$/)]);
  const failed = await row(withdrawalNumbers.failed).locator('td').allTextContents();
  expect(failed.slice(0, 3)).toEqual(['10.00 USDT Tron', '0.10', '9.90']);
  expect(failed[3]).toMatch(/^Failed\S/);
  await assertAccessible(page);
  await shot(page, '3-withdrawals-1280');
  await page.selectOption('select[name=status]', 'Failed');
  await Promise.all([page.waitForURL(/status=Failed/), page.click('form.filters button')]);
  expect(await page.locator('[data-testid=crypto-withdrawals] tbody tr').count()).toBe(1);
  expect(await page.locator('[data-testid=crypto-withdrawals] tbody th').textContent()).toBe(withdrawalNumbers.failed);

  // A phone: the same pages, the tables scrolling inside their region, still no violation.
  await page.setViewportSize({ width: 390, height: 844 });
  for (const [path, name] of [['/console/crypto', '4-balances-390'], ['/console/crypto/transactions', '5-transactions-390'], ['/console/crypto/withdrawals', '6-withdrawals-390']] as const) {
    await page.goto(`${app.base}${path}`);
    await fitsWidth(page);
    await assertAccessible(page);
    await shot(page, name);
  }
  expect(problems).toEqual([]);

  // Crypto gone: the page says so, and the console around it still works.
  await crypto.stop();
  const res = await page.goto(`${app.base}/console/crypto`);
  expect(res!.status()).toBe(200);
  expect(await page.textContent('[data-testid=crypto-unavailable]')).toMatch(/Crypto data is unavailable right now\. The crypto service cannot be reached\./);
  expect(await page.locator('[data-testid=nav-crypto]').count()).toBe(1);
  await fitsWidth(page);
  await assertAccessible(page);
  await shot(page, '7-crypto-unreachable-390');
  await page.close();
}, 120_000);
