import { join } from 'node:path';
import { assertAccessible, assertNoEnglish, eventually, openBrowser, phonePage, BUILT_START_MS, artefactsDir } from '@pay/testing';
import { assertPageInLanguages } from '../../../test/pages';
import { setKycSessionExpiresAt, setKycSessionStatus } from '../../../test/kyc/store';
import { documentForm, idCard, photo, postDocuments, selfie } from '../../../test/kyc/fixtures';
import { newMerchant, startBuiltInvoicing, v2Request, type TestMerchant } from '../../../test/test-support';

/**
 * Every state of the hosted KYC page in Russian and Kazakh on a 390 px phone, on the built
 * bundle: no English word (assertNoEnglish), no axe-core violation (issue 31). A picture too
 * small is declined as such, and the page says how big it must be.
 */
const ARTEFACTS = artefactsDir('kyc-page-languages');
/** Words of the page that are codes, not English: the example country codes the hint names. */
const ALLOW = ['KAZ', 'RUS'];

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

async function session(body: Record<string, unknown> = {}) {
  const res = await v2Request(ctx.app, m, 'post', '/api/v2/kyc/sessions', { customerEmail: 'lang@example.kz', ...body });
  expect(res.status).toBe(201);
  return res.body.session as { id: string; sessionId: string; verificationUrl: string };
}
/** The session's id in its header, and the merchant's name. */
const allow = (s: { sessionId: string }) => [...ALLOW, s.sessionId, m.companyName];

it('the form, a form refused, an expired link and an approved session, in the session’s language or the switch’s', async () => {
  const { page, problems } = await phonePage(browser.context);
  const s = await session({ language: 'en' });
  await assertPageInLanguages(page, s.verificationUrl, { allow: allow(s), shots: { dir: ARTEFACTS, name: '1-form' } });
  // No ?lang=: the session's language, with the switch to the others.
  await page.goto(s.verificationUrl);
  expect(await page.getAttribute('html', 'lang')).toBe('en');
  await Promise.all([page.waitForURL(`${s.verificationUrl}?lang=kk`), page.click('[data-testid=languages] a[data-lang=kk]')]);
  expect(await page.textContent('h1')).toBe('Жеке басты растау');

  // The form sent with mistakes (the browser's own check is off for this test): each field named in the page's language.
  const [document, face] = await Promise.all([idCard(), selfie()]);
  for (const lang of ['ru', 'kk'] as const) {
    await page.goto(`${s.verificationUrl}?lang=${lang}`);
    await page.evaluate("document.querySelector('[data-kyc-form]').noValidate = true");
    await page.setInputFiles('input[name=document]', { name: 'passport.jpg', mimeType: 'image/jpeg', buffer: document });
    await page.setInputFiles('input[name=selfie]', { name: 'selfie.jpg', mimeType: 'image/jpeg', buffer: face });
    await page.fill('input[name=documentNumber]', '12');
    await page.fill('input[name=documentCountry]', 'Kazakhstan');
    await Promise.all([page.waitForURL(`${s.verificationUrl}?lang=${lang}`), page.click('[data-testid=submit]')]);
    expect(await page.getByTestId('error').isVisible()).toBe(true);
    expect(await page.locator('[data-testid=error] li').count()).toBeGreaterThanOrEqual(5); // number, country, names, dates
    await assertNoEnglish(page, lang, { allow: allow(s) }); // what the customer typed stays in its field, which is not the page's text
    await assertAccessible(page);
    await page.screenshot({ path: join(ARTEFACTS, `2-refused-${lang}.png`), fullPage: true });
  }

  const expired = await session({ language: 'ru' });
  await setKycSessionExpiresAt(ctx.deps.db, expired.id, new Date(Date.now() - 60_000));
  await assertPageInLanguages(page, expired.verificationUrl, { allow: allow(expired), shots: { dir: ARTEFACTS, name: '3-expired' } });
  const approved = await session({ language: 'en' });
  await setKycSessionStatus(ctx.deps.db, approved.id, 'APPROVED');
  await assertPageInLanguages(page, approved.verificationUrl, { allow: allow(approved), shots: { dir: ARTEFACTS, name: '3-approved' } });
  expect(problems.filter((p) => !/status of 4\d\d/.test(p))).toEqual([]);
  await page.close();
}, 90_000);

it('a 150×150 selfie is declined as too small, saying the size needed; the retry form and the final decline, in ru and kk', async () => {
  const { page, problems } = await phonePage(browser.context);
  const s = await session({ language: 'ru', maxAttempts: 2 });
  const tiny = await photo({ width: 150, height: 150, format: 'jpeg' });
  const get = async () => (await v2Request(ctx.app, m, 'get', `/api/v2/kyc/sessions/${s.id}`)).body.session;
  // Checking: sent, not decided yet.
  expect((await postDocuments(ctx.app, s.sessionId, documentForm(), { selfie: tiny })).status).toBe(303);
  await assertPageInLanguages(page, s.verificationUrl, { allow: allow(s) });
  await eventually(async () => expect(await get()).toMatchObject({ status: 'IN_PROGRESS', declineReason: 'IMAGE_TOO_SMALL', retryRequired: true }), 150_000);
  await assertPageInLanguages(page, s.verificationUrl, { allow: allow(s), shots: { dir: ARTEFACTS, name: '4-retry-too-small' } });
  await page.goto(`${s.verificationUrl}?lang=ru`);
  expect(await page.getAttribute('[data-testid=decline-reason]', 'data-reason')).toBe('IMAGE_TOO_SMALL');
  expect(await page.textContent('[data-testid=decline-reason]')).toContain('не меньше 320×320 пикселей');
  await assertPageInLanguages(page, `${s.verificationUrl}?retry=1`, { allow: allow(s), shots: { dir: ARTEFACTS, name: '5-retry-form' } });

  // The last attempt too small as well: declined for good, with the same reason.
  expect((await postDocuments(ctx.app, s.sessionId, documentForm(), { selfie: tiny })).status).toBe(303);
  await eventually(async () => expect(await get()).toMatchObject({ status: 'DECLINED', declineReason: 'IMAGE_TOO_SMALL' }), 150_000);
  await assertPageInLanguages(page, s.verificationUrl, { allow: allow(s), shots: { dir: ARTEFACTS, name: '6-declined' } });
  await page.goto(`${s.verificationUrl}?lang=kk`);
  expect(await page.textContent('[data-testid=decline-reason]')).toContain('кемінде 320×320 пиксель');
  expect(problems).toEqual([]);
  await page.close();
}, 400_000);

it('a kycRequired invoice sends the payer to a session in the payment page’s language', async () => {
  const { page, problems } = await phonePage(browser.context);
  const inv = (await v2Request(ctx.app, m, 'post', '/api/v2/invoices', { amount: 500, kycRequired: true, customerEmail: 'kyc-lang@example.kz' })).body.invoice as { paymentLink: string };
  await page.goto(`${inv.paymentLink}?lang=kk`);
  await Promise.all([page.waitForURL(/\/kyc\/kyc_[A-Za-z0-9_-]+\?lang=kk$/), page.getByTestId('start-kyc').click()]);
  expect(await page.getAttribute('html', 'lang')).toBe('kk');
  const sessionId = /\/kyc\/(kyc_[A-Za-z0-9_-]+)/.exec(page.url())![1]!;
  await assertNoEnglish(page, 'kk', { allow: [...ALLOW, sessionId, m.companyName] });
  expect(problems).toEqual([]);
  await page.close();
}, 60_000);
