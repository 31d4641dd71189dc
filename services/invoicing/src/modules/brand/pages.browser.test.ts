import { join } from 'node:path';
import sharp from 'sharp';
import request from 'supertest';
import { signedHeaders } from '@pay/auth';
import { merchantBrand } from '@pay/accounts';
import { artefactsDir, assertAccessible, eventually, openBrowser, phonePage, BUILT_START_MS } from '@pay/testing';
import { multipartBody } from '../../../test/receipts/test-fixtures';
import { HOME } from '../../channels/console/layout';
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

describe('the console’s settings page', () => {
  for (const width of [390, 1280]) {
    it(`sets the name, colour, e-mail language and logo (${width} px, 0 axe violations), and the payment page shows them`, async () => {
      const m = await newMerchant(ctx.deps);
      const page = await browser.context.newPage();
      await page.setViewportSize({ width, height: 900 });
      const problems: string[] = [];
      page.on('console', (msg) => void (msg.type() === 'error' && problems.push(msg.text())));
      await page.goto(`${ctx.base}/console/sign-in`);
      await page.fill('input[name=apiKey]', m.apiKey);
      await Promise.all([page.waitForURL(`${ctx.base}${HOME}`), page.click('form[data-testid=sign-in] button')]);
      await Promise.all([page.waitForURL(/\/console\/settings$/), page.click('[data-testid=nav-settings]')]);
      expect(await page.inputValue('[data-testid=display-name]')).toBe('Acme Ltd');
      expect(await page.getByTestId('no-logo').count()).toBe(1);
      await assertAccessible(page);

      await page.fill('[data-testid=display-name]', 'Кофейня «Ромашка»');
      await page.fill('[data-testid=brand-color]', '#7B1FA2');
      await page.selectOption('[data-testid=default-language]', 'kk');
      await Promise.all([page.waitForEvent('load'), page.click('form[data-testid=brand-form] button')]);
      await eventually(async () =>
        expect(await merchantBrand(ctx.deps.db, m.merchantId)).toMatchObject({ displayName: 'Кофейня «Ромашка»', brandColor: '#7b1fa2', defaultLanguage: 'kk' }),
      );
      await page.setInputFiles('[data-testid=logo-file]', { name: 'logo.png', mimeType: 'image/png', buffer: await logo() });
      await Promise.all([page.waitForEvent('load'), page.click('form[data-testid=logo-form] button')]);
      await page.getByTestId('logo-preview').waitFor();
      expect(await page.evaluate("document.querySelector('[data-testid=logo-preview]').naturalWidth")).toBe(120);
      // A bad colour is refused in the form, with the reason, and changes nothing.
      await page.fill('[data-testid=brand-color]', 'purple');
      await page.evaluate("document.querySelector('[data-testid=brand-color]').removeAttribute('pattern')");
      await page.click('form[data-testid=brand-form] button');
      await eventually(async () => expect(await page.textContent('form[data-testid=brand-form] [data-error]')).toContain('brandColor must be a colour written #rrggbb'));
      expect((await merchantBrand(ctx.deps.db, m.merchantId)).brandColor).toBe('#7b1fa2');
      // The refusal's 400 is the one console error expected: the browser logs the failed request.
      expect(problems).toEqual(['Failed to load resource: the server responded with a status of 400 (Bad Request)']);
      problems.length = 0;
      expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
      await assertAccessible(page);
      await page.screenshot({ path: join(ARTEFACTS, `3-console-settings-${width}.png`), fullPage: true });

      const inv = (await v2Request(ctx.app, m, 'post', '/api/v2/invoices', { amount: 990 })).body.invoice as { paymentLink: string };
      await page.goto(inv.paymentLink);
      expect(await barOf(page)).toMatchObject({ name: 'Кофейня «Ромашка»', background: 'rgb(123, 31, 162)', color: 'rgb(255, 255, 255)', logoLoaded: true });
      expect(problems).toEqual([]);
      await page.close();
    });
  }
});
