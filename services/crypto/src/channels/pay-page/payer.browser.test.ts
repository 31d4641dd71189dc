import { join } from 'node:path';
import request from 'supertest';
import { artefactsDir, assertAccessible, assertNoEnglish, eventually, openBrowser, phonePage, registerCryptoMerchant, spawnBuiltService, type RunningService, BUILT_START_MS } from '@pay/testing';
import { setMerchantBrand } from '@pay/accounts';
import { createCryptoDatabase } from '../../db';
import { setInvoiceExpiry } from '../../../test/invoices/store';

type Page = Awaited<ReturnType<typeof phonePage>>['page'];

// A payer in Russian on a phone, on the built crypto service as scripts/stack.sh runs it (its
// sandbox chain confirms a transfer by itself, a block a second): the page guides, updates
// itself without a reload, copies, shows times in the payer's time zone, and stops anyone
// paying an expired invoice.
let svc: RunningService;
let browser: Awaited<ReturnType<typeof openBrowser>>;
/** Screenshots, kept as test artefacts (gitignored). */
const ARTIFACTS = artefactsDir('crypto-pay-page');

beforeAll(async () => {
  [svc, browser] = await Promise.all([spawnBuiltService('crypto'), openBrowser()]);
}, BUILT_START_MS);
afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

/** A phone in Almaty (UTC+5, no daylight saving) whose browser asks for Russian. */
async function russianPhone() {
  const { page, problems } = await phonePage(browser.context);
  await page.setExtraHTTPHeaders({ 'Accept-Language': 'ru-RU,ru;q=0.9' });
  const cdp = await browser.context.newCDPSession(page);
  await cdp.send('Emulation.setTimezoneOverride', { timezoneId: 'Asia/Almaty' });
  page.on('response', (r) => r.status() >= 400 && problems.push(`${r.status()} ${r.url()}`));
  let loads = 0;
  page.on('framenavigated', (frame) => frame === page.mainFrame() && loads++);
  return { page, problems, loads: () => loads };
}

/**
 * What a Russian or Kazakh page may show in Latin letters: the proper names of tokens and
 * networks (marked translate="no" on the page), and the UTC/GMT of a time's offset as Intl
 * writes it in every language. Addresses and amounts hold digits and are not words.
 */
const PROPER_NAMES = ['Tether USD', 'USD Coin', 'Tron', 'Ethereum', 'BSC', 'UTC', 'GMT'];
const noEnglish = (page: Page | string) => assertNoEnglish(page, 'ru', { allow: PROPER_NAMES });

async function invoice(m: { apiKey: string }, body: Record<string, unknown>) {
  const res = await request(svc.url).post('/api/v1/invoices').set('X-Api-Key', m.apiKey).send(body);
  expect(res.status).toBe(201);
  return res.body.data as { id: string; address: string; paymentUrl: string; expiresAt: string };
}

async function pay(m: { apiKey: string }, invoiceId: string, amount: number) {
  const res = await request(svc.url).post('/api/v1/sandbox/transactions').set('X-Api-Key', m.apiKey).send({ invoiceId, amount });
  expect(res.status).toBe(201);
}

const ONE_PIXEL_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

const text = (page: Page, testId: string) => page.getByTestId(testId).textContent();

it('a payer in ru on a phone: the merchant’s name, colour and logo, copies the address and the amount, times in UTC+5, and the status goes from waiting to partially paid to paid without a reload', async () => {
  const m = await registerCryptoMerchant(svc.url, 'ООО «Ромашка»');
  // The brand the merchant set (through invoicing's API, in production): its name, colour and logo.
  const { db, close } = createCryptoDatabase(process.env.DATABASE_URL!, 1);
  try {
    await setMerchantBrand(db, m.merchantId, { displayName: 'Ромашка', brandColor: '#7B2CBF', logo: Buffer.from(ONE_PIXEL_PNG, 'base64') });
  } finally {
    await close();
  }
  const inv = await invoice(m, { amount: 25, currency: 'USDT_TRC20', description: 'Заказ №7' });
  await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: svc.url });
  const { page, problems, loads } = await russianPhone();
  await page.goto(inv.paymentUrl);
  await page.evaluate('window.sameDocument = true');

  expect(await page.getAttribute('html', 'lang')).toBe('ru');
  expect(await page.title()).toBe('Оплата 25 Tether USD — Ромашка');
  expect(await text(page, 'merchant-name')).toBe('Ромашка');
  expect(await page.evaluate("getComputedStyle(document.querySelector('[data-testid=merchant]')).backgroundColor")).toBe('rgb(123, 44, 191)');
  expect(await page.evaluate("document.querySelector('[data-testid=merchant-logo]').naturalWidth")).toBe(1);
  expect(await text(page, 'status')).toBe('Ожидает оплаты');
  expect(await text(page, 'received')).toBe('0');
  expect(await text(page, 'due')).toBe('25');
  expect(await text(page, 'address')).toBe(inv.address);
  expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
  // Expiry in the payer's zone with its offset, rendered by the browser's Intl from the server's UTC.
  const expiresAt = new Date(inv.expiresAt);
  const almaty = new Date(expiresAt.getTime() + 5 * 3600_000);
  const expected = `${String(almaty.getUTCHours()).padStart(2, '0')}:${String(almaty.getUTCMinutes()).padStart(2, '0')}`;
  expect(await text(page, 'expires-at')).toContain(expected);
  expect(await text(page, 'expires-at')).toContain('GMT+5');
  await assertAccessible(page);
  await noEnglish(page);

  // Copy: the Clipboard API, a visible confirmation that a screen reader is told (role=status).
  await page.getByTestId('copy-address').click();
  await eventually(async () => expect(await page.evaluate('navigator.clipboard.readText()')).toBe(inv.address), 3000);
  const note = page.locator('[data-testid=copy-address] >> xpath=../following-sibling::*[1]');
  expect(await note.getAttribute('role')).toBe('status');
  expect(await note.textContent()).toBe('Скопировано');
  expect(await note.isVisible()).toBe(true);
  await page.getByTestId('copy-due-amount').click();
  await eventually(async () => expect(await page.evaluate('navigator.clipboard.readText()')).toBe('25'), 3000);

  // A partial payment: the page changes by itself and says what came and what is still due.
  await pay(m, inv.id, 10);
  await eventually(async () => expect(await text(page, 'status')).toBe('Частично оплачен'), 30_000);
  await eventually(async () => expect(await text(page, 'due')).toBe('15'), 10_000);
  expect(await text(page, 'received')).toBe('10');
  expect(await text(page, 'instruction')).toContain('15 Tether USD');
  await eventually(async () => expect(await text(page, 'announce')).toBe('Частично оплачен'), 3000);
  expect(await text(page, 'expires-at')).toContain('GMT+5'); // the swapped-in section is prepared again
  expect(await page.getByTestId('copy-address').isVisible()).toBe(true);
  await assertAccessible(page);
  await noEnglish(page);
  await page.screenshot({ path: join(ARTIFACTS, 'ru-partially-paid.png'), fullPage: true });

  await pay(m, inv.id, 15);
  await eventually(async () => expect(await text(page, 'status')).toBe('Оплачен'), 30_000);
  expect(await text(page, 'received')).toBe('25');
  expect(await text(page, 'paid-at')).toContain('GMT+5');
  await page.screenshot({ path: join(ARTIFACTS, 'ru-paid.png'), fullPage: true });
  expect(await page.locator('[data-testid=address], [data-testid=qr], button[data-copy]').count()).toBe(0);
  await assertAccessible(page);
  await noEnglish(page);

  // All without a reload: the same document, loaded once.
  expect(await page.evaluate('window.sameDocument')).toBe(true);
  expect(loads()).toBe(1);
  // Final: the poll stops.
  expect(await page.getAttribute('body', 'data-final')).toBe('true');
  const polls: string[] = [];
  page.on('request', (r) => polls.push(r.url()));
  await page.waitForTimeout(6000);
  expect(polls).toEqual([]);
  expect(problems).toEqual([]);
  await page.close();
}, 120_000);

it('a refused clipboard: the value is selected for copying by hand, and the page says so', async () => {
  const m = await registerCryptoMerchant(svc.url, 'ООО «Ромашка»');
  const inv = await invoice(m, { amount: 3, currency: 'USDT_ERC20' });
  const { page, problems } = await russianPhone();
  // The browser refuses, as it does without permission or outside a secure context.
  await page.addInitScript("navigator.clipboard.writeText = () => Promise.reject(new DOMException('Write permission denied.', 'NotAllowedError'))");
  await page.goto(inv.paymentUrl);
  await page.getByTestId('copy-address').click();
  const note = page.locator('[data-testid=copy-address] >> xpath=../following-sibling::*[1]');
  await eventually(async () => expect(await note.textContent()).toBe('Не удалось скопировать автоматически. Текст выделен: скопируйте его вручную.'), 3000);
  expect(await page.evaluate('String(window.getSelection())')).toBe(inv.address);
  expect(problems).toEqual([]);
  await page.close();
}, 60_000);

it('the poll is rate-limit friendly: every 5 s, and on a 429 it waits the Retry-After it was given', async () => {
  const m = await registerCryptoMerchant(svc.url);
  const inv = await invoice(m, { amount: 2, currency: 'USDT_TRC20' });
  const { page } = await phonePage(browser.context);
  const polls: number[] = [];
  const started = Date.now();
  // The service's own 429 is tested in presenter.test.ts; here the browser is told it, to see what the script does.
  await page.route(`**/pay/${inv.id}/status*`, async (route) => {
    polls.push(Date.now() - started);
    if (polls.length === 1) await route.fulfill({ status: 429, headers: { 'Retry-After': '2', 'Content-Type': 'application/json' }, body: '{"success":false}' });
    else await route.continue();
  });
  await page.goto(inv.paymentUrl);
  await eventually(async () => expect(polls.length).toBeGreaterThanOrEqual(3), 20_000, 200);
  const [first, second, third] = polls as [number, number, number];
  expect(first).toBeGreaterThanOrEqual(4500); // the first poll 5 s after the page
  expect(second - first).toBeGreaterThanOrEqual(1900); // Retry-After: 2 (s)
  expect(second - first).toBeLessThan(4500); // not the usual 5 s, nor the 15 s after an error
  expect(third - second).toBeGreaterThanOrEqual(4900); // back to every 5 s
  await page.close();
}, 60_000);

it('an expired invoice: the open page turns into "do not pay" by itself, with no address, QR or copy button; reloaded it says the same, in UTC without JavaScript', async () => {
  const m = await registerCryptoMerchant(svc.url, 'ООО «Ромашка»');
  const inv = await invoice(m, { amount: 7, currency: 'USDT_TRC20' });
  const { db, close } = createCryptoDatabase(process.env.DATABASE_URL!, 1);
  try {
    await setInvoiceExpiry(db, inv.id, new Date(Date.now() + 4000));
  } finally {
    await close();
  }
  const { page, problems, loads } = await russianPhone();
  await page.goto(inv.paymentUrl);
  expect(await text(page, 'address')).toBe(inv.address);
  await eventually(async () => expect(await text(page, 'status')).toBe('Срок истёк'), 20_000);
  expect(loads()).toBe(1);
  const stop = page.getByTestId('do-not-pay');
  expect(await stop.locator('h2').textContent()).toBe('Не оплачивайте этот счёт');
  expect(await stop.textContent()).toContain('Если вы уже отправили оплату, сохраните хеш транзакции и свяжитесь с продавцом (ООО «Ромашка»)');
  expect(await page.locator('[data-testid=address], [data-testid=qr], [data-testid=open-wallet], button[data-copy], [data-testid=countdown]').count()).toBe(0);
  expect(await page.content()).not.toContain(inv.address);
  await page.screenshot({ path: join(ARTIFACTS, 'ru-expired.png'), fullPage: true });
  await assertAccessible(page);
  await noEnglish(page);

  await page.reload();
  expect(await text(page, 'status')).toBe('Срок истёк');
  expect(await page.content()).not.toContain(inv.address);
  expect(problems).toEqual([]);
  await page.close();

  // Without JavaScript the times stay as the server wrote them: in UTC, saying so.
  const open = await invoice(m, { amount: 7, currency: 'USDT_TRC20' });
  const res = await request(svc.url).get(`/pay/${open.id}`).set('Accept-Language', 'ru');
  expect(res.text).toMatch(/<time data-testid="expires-at" data-local-time datetime="[^"]+">[^<]*UTC<\/time>/);
  await noEnglish(res.text);
}, 60_000);

it('the language from ?lang= or Accept-Language; the status poll is small JSON in that language; broken links are pages in the payer language, never JSON', async () => {
  const m = await registerCryptoMerchant(svc.url);
  const inv = await invoice(m, { amount: 5, currency: 'USDC_BEP20' });
  const { page, problems } = await russianPhone();
  await page.goto(`${inv.paymentUrl}?lang=kk`);
  expect(await text(page, 'status')).toBe('Төлем күтілуде');
  await assertNoEnglish(page, 'kk', { allow: [...PROPER_NAMES, 'Acme Ltd'] }); // the merchant's own name
  await assertAccessible(page);
  expect(await page.getAttribute('body', 'data-status-url')).toBe(`/pay/${inv.id}/status?lang=kk`);
  await Promise.all([page.waitForURL(/\?lang=en$/), page.click('[data-testid=languages] a[data-lang=en]')]);
  expect(await text(page, 'status')).toBe('Awaiting payment');
  expect(problems).toEqual([]);

  // A language we do not speak: the merchant's default (Russian unless it set another).
  expect((await request(svc.url).get(`/pay/${inv.id}`).set('Accept-Language', 'de-DE,de;q=0.9')).text).toContain('<html lang="ru">');

  const status = await request(svc.url).get(`/pay/${inv.id}/status`).set('Accept-Language', 'ru');
  expect(status.status).toBe(200);
  expect(status.headers['cache-control']).toBe('no-store');
  expect(status.body).toEqual({ state: 'waiting', status: 'Ожидает оплаты', final: false, received: '0', awaiting: '0', due: '5', version: expect.any(String) });
  expect(JSON.stringify(status.body)).not.toContain(inv.address);

  for (const path of ['/pay/', '/pay', '/pay/not-an-invoice', `/pay/${inv.id}/nothing-here`]) {
    await page.setExtraHTTPHeaders({ 'Accept-Language': 'kk-KZ,kk;q=0.9,ru;q=0.5' });
    const res = await page.goto(`${svc.url}${path}`);
    expect(res!.status()).toBe(404);
    expect(res!.headers()['content-type']).toMatch(/^text\/html/);
    expect(await page.locator('h1').textContent()).toBe('Шот табылмады');
    expect(await text(page, 'error')).toBe('Сілтеме бүлінген немесе толық емес. Дүкен жіберген сілтемені қайта ашыңыз немесе жаңасын сұраңыз.');
  }
  await page.setExtraHTTPHeaders({ 'Accept-Language': 'ru' });
  await page.goto(`${svc.url}/pay/00000000-0000-4000-8000-000000000000`);
  expect(await page.locator('h1').textContent()).toBe('Счёт не найден');
  await assertAccessible(page);
  await noEnglish(page);
  await page.close();

  // A program asking for JSON still gets the API's error.
  const json = await request(svc.url).get('/pay/').set('Accept', 'application/json');
  expect(json.status).toBe(404);
  expect(json.body).toMatchObject({ success: false, error: { code: 'NOT_FOUND' } });
}, 60_000);
