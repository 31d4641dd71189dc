import { join } from 'node:path';
import { assertAccessible, assertNoEnglish, openBrowser, phonePage, BUILT_START_MS, artefactsDir } from '@pay/testing';
import { setInvoiceStatus } from '../../../test/invoices/store';
import { assertPageInLanguages } from '../../../test/pages';
import { newMerchant, startBuiltInvoicing, v2Request, type TestMerchant } from '../../../test/test-support';

/**
 * Every state of the fiat payment page, its sandbox bank app and its refusal pages, in Russian
 * and Kazakh on a 390 px phone, on the built bundle: no English word (assertNoEnglish), no
 * axe-core violation, nothing wider than the screen (issue 31). The refund, decline and review
 * states of a live acquirer are walked the same way in payments/tbank/tbank.browser.test.ts.
 */
const ARTEFACTS = artefactsDir('pay-page-languages');
/** The invoice's description, the merchant's own words: not ours to translate. */
const DESCRIPTION = 'Плед Merino Wool';

let ctx: Awaited<ReturnType<typeof startBuiltInvoicing>>;
let browser: Awaited<ReturnType<typeof openBrowser>>;
let m: TestMerchant;

beforeAll(async () => {
  [ctx, browser] = await Promise.all([startBuiltInvoicing(), openBrowser()]);
  m = await newMerchant(ctx.deps);
}, BUILT_START_MS);
afterAll(async () => {
  await browser?.close();
  await ctx?.close();
});

async function invoice(body: Record<string, unknown> = {}) {
  const res = await v2Request(ctx.app, m, 'post', '/api/v2/invoices', { amount: 1000, description: DESCRIPTION, ...body });
  expect(res.status).toBe(201);
  return res.body.invoice as { id: string; paymentLink: string; qrPayload: string };
}
const shots = (name: string) => ({ dir: ARTEFACTS, name });
/** The merchant's own words on its pages: its name and the invoice's description. */
const allow = () => [DESCRIPTION, m.companyName];

it('awaiting payment by SBP and by card, the sandbox bank app, KYC needed, expired and cancelled', async () => {
  const { page, problems } = await phonePage(browser.context);
  const sbp = await invoice();
  await assertPageInLanguages(page, sbp.paymentLink, { allow: allow(), shots: shots('1-sbp') });
  expect(await page.getByTestId('qr').getAttribute('alt')).toBe('СБП QR коды: оны банк қосымшасында сканерлеңіз');
  await assertPageInLanguages(page, sbp.qrPayload, { allow: allow(), shots: shots('2-sandbox-bank') });
  const card = await invoice({ paymentMethod: 'card' });
  await assertPageInLanguages(page, card.paymentLink, { allow: allow(), shots: shots('3-card') });
  expect(await page.getByTestId('card-expiry').getAttribute('placeholder')).toBe('АА/ЖЖ');
  await assertPageInLanguages(page, (await invoice({ kycRequired: true })).paymentLink, { allow: allow(), shots: shots('4-kyc-needed') });
  const expired = await invoice();
  await setInvoiceStatus(ctx.deps.db, expired.id, 'EXPIRED');
  await assertPageInLanguages(page, expired.paymentLink, { allow: allow(), shots: shots('5-expired') });
  const cancelled = await invoice();
  expect((await v2Request(ctx.app, m, 'post', `/api/v2/invoices/${cancelled.id}/cancel`)).status).toBe(200);
  await assertPageInLanguages(page, cancelled.paymentLink, { allow: allow(), shots: shots('6-cancelled') });
  expect(problems).toEqual([]);
  await page.close();
}, 120_000);

it('card problems caught in the page and refused by the bank are said in the payer’s language, and the payer can try again', async () => {
  const { page, problems } = await phonePage(browser.context);
  const card = await invoice({ paymentMethod: 'card' });
  for (const [lang, luhn, declined] of [
    ['ru', 'Проверьте номер карты.', 'Банк отклонил карту.'],
    ['kk', 'Карта нөмірін тексеріңіз.', 'Банк картаны қабылдамады.'],
  ] as const) {
    await page.goto(`${card.paymentLink}?lang=${lang}`);
    await page.getByTestId('card-number').fill('4242424242424241');
    await page.getByTestId('card-expiry').fill('12/30');
    await page.getByTestId('card-cvc').fill('123');
    await page.getByTestId('pay').click();
    await page.waitForSelector('[data-client-problem]:not([hidden])');
    expect(await page.textContent('[data-client-problem]')).toBe(luhn);
    await assertNoEnglish(page, lang, { allow: allow() });
    // The sandbox declines this number: the form again, the bank's refusal in the payer's words.
    await page.getByTestId('card-number').fill('4000000000000002');
    await Promise.all([page.waitForURL(`${card.paymentLink}/card?lang=${lang}`), page.getByTestId('pay').click()]);
    expect(await page.getByTestId('error').getAttribute('data-refusal')).toBe('cardDeclined');
    expect(await page.getByTestId('error').textContent()).toContain(declined);
    expect(await page.getByTestId('card-number').isVisible()).toBe(true);
    await assertNoEnglish(page, lang, { allow: allow() });
    await assertAccessible(page);
    await page.screenshot({ path: join(ARTEFACTS, `7-card-declined-${lang}.png`), fullPage: true });
  }
  expect(problems.filter((p) => !p.includes('status of 422'))).toEqual([]); // the refusal's own status

  await page.close();
}, 60_000);

it('paid, partly refunded with the amounts, refunded in full (never "paid" again)', async () => {
  const { page, problems } = await phonePage(browser.context);
  const paid = await invoice();
  expect((await v2Request(ctx.app, m, 'post', `/api/v2/sandbox/invoices/${paid.id}/pay`, {})).status).toBe(200);
  await assertPageInLanguages(page, paid.paymentLink, { allow: allow(), shots: shots('8-paid') });
  expect((await v2Request(ctx.app, m, 'post', `/api/v2/invoices/${paid.id}/refunds`, { amount: 250 })).status).toBe(201);
  await assertPageInLanguages(page, paid.paymentLink, { allow: allow(), shots: shots('9-partly-refunded') });
  await page.goto(`${paid.paymentLink}?lang=ru`);
  expect(await page.locator('body').getAttribute('data-status')).toBe('partly_refunded');
  expect((await page.getByTestId('refunded').textContent())!.replace(/\u00a0/g, ' ')).toBe('Вам возвращено 250,00 ₽ из 1 000,00 ₽.');
  expect((await v2Request(ctx.app, m, 'post', `/api/v2/invoices/${paid.id}/refunds`, {})).status).toBe(201);
  await assertPageInLanguages(page, paid.paymentLink, { allow: allow(), shots: shots('10-refunded') });
  await page.goto(`${paid.paymentLink}?lang=ru`);
  expect(await page.locator('body').getAttribute('data-status')).toBe('refunded');
  expect(await page.getByTestId('status').textContent()).toBe('ВОЗВРАТ');
  expect(await page.locator('main').textContent()).not.toContain('Оплата получена');
  expect(problems).toEqual([]);
  await page.close();
}, 60_000);

it('links that lead nowhere: an HTML page in the browser’s language (Accept-Language or ?lang=), JSON for API clients', async () => {
  const { page, problems } = await phonePage(browser.context);
  for (const [lang, title] of [
    ['ru', 'Страница не найдена'],
    ['kk', 'Бет табылмады'],
  ] as const) {
    await page.setExtraHTTPHeaders({ 'Accept-Language': `${lang},en;q=0.5` });
    for (const [path, refusal] of [
      ['/pay/', 'notFound'],
      ['/pay/not-an-invoice', 'brokenLink'],
      ['/pay/6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab', 'notFound'],
      ['/nowhere', 'notFound'],
      ['/kyc/kyc_short', 'brokenLink'],
    ] as const) {
      const res = await page.goto(`${ctx.base}${path}`);
      expect(res!.headers()['content-type']).toMatch(/^text\/html/);
      expect(res!.status()).toBe(refusal === 'notFound' ? 404 : 400);
      expect(await page.getByTestId('error').getAttribute('data-refusal')).toBe(refusal);
      if (refusal === 'notFound') expect(await page.textContent('h1')).toBe(title);
      await assertNoEnglish(page, lang);
      await assertAccessible(page);
    }
    await page.screenshot({ path: join(ARTEFACTS, `11-not-found-${lang}.png`), fullPage: true });
  }
  // ?lang= wins over Accept-Language, as on the pages themselves.
  await page.goto(`${ctx.base}/pay/not-an-invoice?lang=kk`);
  await assertNoEnglish(page, 'kk');
  // An API client asking the same keeps its JSON error.
  const api = await page.request.get(`${ctx.base}/pay/`, { headers: { Accept: 'application/json' } });
  expect(api.status()).toBe(404);
  expect((await api.json()).error.code).toBe('NOT_FOUND');
  const v2 = await page.request.get(`${ctx.base}/api/v2/nowhere`, { headers: { Accept: 'text/html' } });
  expect(v2.headers()['content-type']).toMatch(/json/);
  expect(problems.filter((p) => !/status of 40\d/.test(p))).toEqual([]);
  await page.close();
}, 60_000);
