import { join } from 'node:path';
import sharp from 'sharp';
import request from 'supertest';
import { signedHeaders } from '@pay/auth';
import { artefactsDir, assertAccessible, openBrowser, phonePage, BUILT_START_MS } from '@pay/testing';
import { multipartBody } from '../../../test/receipts/test-fixtures';
import { newMerchant, startBuiltInvoicing, v2Request, type TestMerchant } from '../../../test/test-support';

/** Screenshots, kept as test artefacts (gitignored). */
const ARTEFACTS = artefactsDir('brand');

let ctx: Awaited<ReturnType<typeof startBuiltInvoicing>>;
let browser: Awaited<ReturnType<typeof openBrowser>>;

beforeAll(async () => {
  [ctx, browser] = await Promise.all([startBuiltInvoicing(), openBrowser()]);
}, BUILT_START_MS);
afterAll(async () => {
  await browser?.close();
  await ctx?.close();
});

/** A 120×40 logo: a dark rounded mark on white, as a merchant would upload. */
const logo = () =>
  sharp(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="120" height="40"><rect width="120" height="40" fill="#fff"/><rect x="4" y="4" width="32" height="32" rx="8" fill="#3b2a1a"/></svg>'))
    .png()
    .toBuffer();

/** A merchant through the API, as a merchant sets its brand: the name, colour and language (PATCH), then the logo (PUT, signed multipart). */
async function brandedMerchant(brand: { displayName: string; brandColor: string }): Promise<TestMerchant> {
  const m = await newMerchant(ctx.deps);
  expect((await v2Request(ctx.app, m, 'patch', '/api/v2/merchant/brand', brand)).status).toBe(200);
  const path = '/api/v2/merchant/brand/logo';
  const { body, contentType } = multipartBody('file', 'logo.png', 'image/png', await logo());
  let req = request(ctx.app).put(path).set('x-api-key', m.apiKey).set('Content-Type', contentType);
  for (const [k, v] of Object.entries(signedHeaders('v2', m.hmacSecret, { method: 'PUT', path, body }))) req = req.set(k, v);
  expect((await req.send(body)).status).toBe(200);
  return m;
}

/** What the page's merchant bar shows, as the browser renders it. */
const barOf = (page: import('playwright-core').Page) =>
  page.evaluate(`(() => {
    const bar = document.querySelector('[data-testid=merchant]');
    const img = bar.querySelector('img');
    const name = bar.querySelector('[data-testid=merchant-name]');
    return {
      name: name.textContent,
      background: getComputedStyle(bar).backgroundColor,
      color: getComputedStyle(name).color,
      logoLoaded: img ? img.complete && img.naturalWidth === 120 : null,
      logoHeight: img ? img.getBoundingClientRect().height : null,
      top: bar.getBoundingClientRect().top,
      fits: document.documentElement.scrollWidth <= window.innerWidth,
    };
  })()`) as Promise<{ name: string; background: string; color: string; logoLoaded: boolean | null; logoHeight: number | null; top: number; fits: boolean }>;

describe('the merchant’s identity on the payer’s pages, in Chromium at 390 px', () => {
  it('the payment page names the merchant first, with its logo and colour (dark text on yellow), escaped, with 0 axe violations', async () => {
    const m = await brandedMerchant({ displayName: 'Кофейня «Ромашка» <b>&</b>', brandColor: '#ffd500' });
    const inv = (await v2Request(ctx.app, m, 'post', '/api/v2/invoices', { amount: 2500, description: 'Капучино' })).body.invoice as { paymentLink: string };
    const { page, problems } = await phonePage(browser.context);
    await page.goto(`${inv.paymentLink}?lang=ru`);
    expect(await barOf(page)).toEqual({
      name: 'Кофейня «Ромашка» <b>&</b>',
      background: 'rgb(255, 213, 0)',
      color: 'rgb(0, 0, 0)',
      logoLoaded: true,
      logoHeight: 40,
      top: 0,
      fits: true,
    });
    await assertAccessible(page);
    await page.screenshot({ path: join(ARTEFACTS, '1-pay-page-ru.png'), fullPage: true });
    // No CSP violation (a stylesheet or image refused would be a console error).
    expect(problems).toEqual([]);
    await page.close();
  });

  it('a merchant with no brand set shows its companyName on the payment page', async () => {
    const m = await newMerchant(ctx.deps);
    const inv = (await v2Request(ctx.app, m, 'post', '/api/v2/invoices', { amount: 10, paymentMethod: 'card' })).body.invoice as { paymentLink: string };
    const { page, problems } = await phonePage(browser.context);
    await page.goto(inv.paymentLink);
    expect(await barOf(page)).toMatchObject({ name: 'Acme Ltd', background: 'rgba(0, 0, 0, 0)', logoLoaded: null, fits: true });
    await assertAccessible(page);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('the KYC page names the merchant asking for the documents (white text on a dark colour), with 0 axe violations', async () => {
    const m = await brandedMerchant({ displayName: 'Qazaq Travel', brandColor: '#0b3d91' });
    const s = await v2Request(ctx.app, m, 'post', '/api/v2/kyc/sessions', { customerEmail: 'payer@example.kz', language: 'kk' });
    expect(s.status).toBe(201);
    const { page, problems } = await phonePage(browser.context);
    await page.goto(s.body.session.verificationUrl);
    expect(await barOf(page)).toEqual({ name: 'Qazaq Travel', background: 'rgb(11, 61, 145)', color: 'rgb(255, 255, 255)', logoLoaded: true, logoHeight: 40, top: 0, fits: true });
    await assertAccessible(page);
    await page.screenshot({ path: join(ARTEFACTS, '2-kyc-page-kk.png'), fullPage: true });
    expect(problems).toEqual([]);
    await page.close();
  });
});
