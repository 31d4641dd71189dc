import { join } from 'node:path';
import { artefactsDir, openBrowser, phonePage, spawnBuiltService, type RunningService, BUILT_START_MS } from '@pay/testing';
import { startBuiltInvoicing } from '@pay/invoicing/test';

/** Each service's /docs (Swagger UI over its /openapi.json), built as shipped, on a 390 px phone. */
const ARTEFACTS = artefactsDir('docs-page');

let invoicing: Awaited<ReturnType<typeof startBuiltInvoicing>>;
let crypto: RunningService;
let browser: Awaited<ReturnType<typeof openBrowser>>;

beforeAll(async () => {
  [invoicing, crypto, browser] = await Promise.all([startBuiltInvoicing(), spawnBuiltService('crypto'), openBrowser()]);
}, BUILT_START_MS);
afterAll(async () => {
  await browser?.close();
  await crypto?.stop();
  await invoicing?.close();
});

it.each([
  ['invoicing', () => invoicing.base],
  ['crypto', () => crypto.url],
])('%s /docs has a viewport meta and fits a 390 px phone, operations opened too', async (name, base) => {
  const { page, problems } = await phonePage(browser.context);
  await page.goto(`${base()}/docs`);
  expect(await page.getAttribute('meta[name=viewport]', 'content')).toBe('width=device-width, initial-scale=1');
  await page.waitForSelector('.opblock-summary', { timeout: 30_000 });
  // The signing rule and a sample in each language, from the document's description.
  const info = (await page.textContent('.information-container')) ?? '';
  for (const sample of ['Signing requests', 'openssl dgst -sha256', "createHmac('sha256'", 'hmac.new(', 'hash_hmac(', 'hmac.New(sha256.New']) expect(info).toContain(sample);
  const fits = () => page.evaluate('document.documentElement.scrollWidth <= window.innerWidth && document.body.scrollWidth <= window.innerWidth');
  const widest = () =>
    page.evaluate(`Array.from(document.querySelectorAll('body *')).filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1).slice(0, 5).map((e) => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right))`);
  expect(await widest()).toEqual([]);
  expect(await fits()).toBe(true);
  // An operation opened, with its parameters and responses, still fits.
  await page.locator('.opblock-summary').first().click();
  await page.waitForSelector('.opblock-body');
  expect(await widest()).toEqual([]);
  expect(await fits()).toBe(true);
  await page.screenshot({ path: join(ARTEFACTS, `${name}-390.png`) });
  expect(problems).toEqual([]);
  await page.close();
}, 60_000);
