import { createHmac } from 'node:crypto';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { assertValid } from '@pay/schemas';
import { invoicingEvents } from '../../event-catalogue';
import { eventually, openBrowser, phonePage, spawnBuiltService, startReceiver, type Receiver, type RunningService, BUILT_START_MS, artefactsDir } from '@pay/testing';
import { newMerchant, startBuiltInvoicing, v1Request, v2Request } from '../../../test/test-support';
import { documentForm, idCard, passportMrz, postDocuments, selfie } from '../../../test/kyc/fixtures';

/** Screenshots of every step, kept as test artefacts (gitignored). */
const ARTEFACTS = artefactsDir('kyc-page');

// The stack as scripts/stack.sh runs it: the built invoicing service (its KYC check loads the
// face model and the MRZ reader with the first session) and the built webhook worker, which
// delivers the session's result.
let ctx: Awaited<ReturnType<typeof startBuiltInvoicing>>;
let browser: Awaited<ReturnType<typeof openBrowser>>;
let worker: RunningService;
let receiver: Receiver;
let base: string;

beforeAll(async () => {
  [ctx, worker, receiver, browser] = await Promise.all([
    startBuiltInvoicing(),
    spawnBuiltService('webhook-worker', { WEBHOOK_POLL_INTERVAL_MS: '50' }),
    startReceiver({ status: 200, body: 'ok' }),
    openBrowser(),
  ]);
  base = ctx.base;
}, BUILT_START_MS);
afterAll(async () => {
  await browser?.close();
  await receiver?.close();
  await worker?.stop();
  await ctx?.close();
});

async function shot(page: Page, name: string) {
  await page.screenshot({ path: join(ARTEFACTS, `${name}.png`), fullPage: true });
}

it('walks the v1 page on a phone from pending to a decision, back to redirectUrl, with the signed result at webhookUrl', async () => {
  const m = await newMerchant(ctx.deps);
  const created = await v1Request(ctx.app, m, 'post', '/api/v1/kyc/sessions', {
    level: 'basic',
    redirectUrl: `${base}/healthz?kyc=done`,
    locale: 'kz',
    metadata: { orderId: 'A-17' },
    webhookUrl: `${receiver.url}/kyc-result`,
  });
  expect(created.status).toBe(201);
  const session = created.body as { id: string; verificationUrl: string; status: string };
  expect(session.status).toBe('pending');

  const { page, problems } = await phonePage(browser.context);

  await page.goto(session.verificationUrl);
  expect(await page.textContent('h1')).toBe('Жеке басты растау');
  expect(await page.getAttribute('input[name=document]', 'capture')).toBe('environment');
  expect(await page.getAttribute('input[name=selfie]', 'capture')).toBe('user');
  await shot(page, '1-form');

  const year = new Date().getUTCFullYear();
  const who = { country: 'KAZ', lastName: 'SEITOVA', firstName: 'AIGERIM', number: 'N07654321', birth: '1988-05-17', expiry: `${year + 3}-05-16` };
  await page.setInputFiles('input[name=document]', { name: 'passport.jpg', mimeType: 'image/jpeg', buffer: await idCard({ holder: who }) });
  await page.setInputFiles('input[name=selfie]', { name: 'selfie.jpg', mimeType: 'image/jpeg', buffer: await selfie() });
  await page.selectOption('select[name=documentType]', 'passport');
  await page.fill('input[name=documentNumber]', who.number);
  await page.fill('input[name=documentCountry]', who.country);
  await page.fill('input[name=lastName]', 'Seitova');
  await page.fill('input[name=firstName]', 'Aigerim');
  await page.fill('input[name=dateOfBirth]', who.birth);
  await page.fill('input[name=documentExpiresAt]', who.expiry);
  await page.fill('textarea[name=mrz]', passportMrz(who));
  await shot(page, '2-filled');
  expect((await v1Request(ctx.app, m, 'get', `/api/v1/kyc/sessions/${session.id}`)).body.status).toBe('pending');

  await Promise.all([page.waitForURL(session.verificationUrl), page.click('[data-testid=submit]')]);
  await shot(page, '3-sent');
  // The check decides; the page notices by itself and shows the outcome, then returns to the merchant.
  // The built service loads the face model and the zone reader with this first check (several
  // seconds alone, far more on a loaded 2-core machine).
  await eventually(async () => expect(await page.textContent('[data-testid=status]')).toBe('Расталды'), 150_000);
  await shot(page, '4-approved');
  expect((await v1Request(ctx.app, m, 'get', `/api/v1/kyc/sessions/${session.id}`)).body.status).toBe('completed');
  // What the KYC page itself loaded and ran, up to the redirect: the merchant's redirectUrl (here a
  // JSON health answer) is not our page, and Chromium asks it for /favicon.ico, a 404 logged only
  // when that request happens to finish before the page closes.
  const pageProblems = [...problems];
  await page.waitForURL(`${base}/healthz?kyc=done`, { timeout: 10_000 });

  // The result went to the session's own webhookUrl only, signed with the merchant's HMAC secret.
  const got = await eventually(() => {
    expect(receiver.received).toHaveLength(1);
    return receiver.received[0]!;
  }, 20_000);
  expect(got.path).toBe('/kyc-result');
  expect(got.headers['x-svc-event']).toBe('kyc.passed');
  expect(createHmac('sha256', m.hmacSecret).update(`${got.headers['x-svc-timestamp']}${got.body}`).digest('hex')).toBe(got.headers['x-svc-signature']);
  expect(JSON.parse(got.body)).toEqual({
    event: 'kyc.passed',
    id: expect.stringMatching(/^[0-9a-f-]{36}$/),
    type: 'kyc.passed',
    createdAt: expect.any(String),
    source: 'invoicing',
    timestamp: expect.any(Number),
    livemode: false,
    session: { id: session.id, level: 'basic', status: 'completed', metadata: { orderId: 'A-17' }, reason: null, updatedAt: expect.any(String) },
  });
  assertValid(invoicingEvents.bodies['kyc.passed'], JSON.parse(got.body)); // the documented contract, v1 shape
  expect(pageProblems).toEqual([]);
  await page.close();
}, 240_000);

it('fits a phone 360–430 px wide in every language: no sideways scroll, the form or an outcome', async () => {
  const m = await newMerchant(ctx.deps);
  const page = await browser.context.newPage();
  const wide: string[] = [];
  for (const language of ['en', 'ru', 'kk']) {
    const created = await v2Request(ctx.app, m, 'post', '/api/v2/kyc/sessions', { customerEmail: `${language}@example.kz`, language });
    expect(created.status).toBe(201);
    for (const width of [360, 390, 430]) {
      await page.setViewportSize({ width, height: 800 });
      await page.goto(created.body.session.verificationUrl);
      const measured = (await page.evaluate(
        '({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth, widest: Math.max(...[...document.querySelectorAll("main *")].map((e) => e.getBoundingClientRect().right)) })',
      )) as { scrollWidth: number; innerWidth: number; widest: number };
      if (measured.scrollWidth > measured.innerWidth || measured.widest > measured.innerWidth) wide.push(`${language} at ${width} px: ${JSON.stringify(measured)}`);
      if (width === 390) await shot(page, `phone-${language}-390`);
    }
  }
  expect(wide).toEqual([]);
  await page.close();
}, 60_000);

it('a declined attempt: the customer sees a reason fit to show in their language, tries again on the page, and passes; the merchant reads the code and the attempts', async () => {
  const m = await newMerchant(ctx.deps);
  const created = await v2Request(ctx.app, m, 'post', '/api/v2/kyc/sessions', { customerEmail: 'expired@example.kz', language: 'ru' });
  const session = created.body.session as { id: string; sessionId: string; verificationUrl: string };
  const year = new Date().getUTCFullYear();
  // The first attempt types a validity date in the past: declined, DOCUMENT_EXPIRED, with attempts left.
  expect((await postDocuments(ctx.app, session.sessionId, documentForm({ documentExpiresAt: `${year - 1}-01-31` }))).status).toBe(303);
  const get = async () => (await v2Request(ctx.app, m, 'get', `/api/v2/kyc/sessions/${session.id}`)).body.session;
  await eventually(
    async () =>
      expect(await get()).toMatchObject({ status: 'IN_PROGRESS', declineReason: 'DOCUMENT_EXPIRED', retryRequired: true, attemptsUsed: 1, attemptsRemaining: 2 }),
    150_000,
  );
  const { page, problems } = await phonePage(browser.context);
  await page.goto(session.verificationUrl);
  expect(await page.getAttribute('[data-testid=decline-reason]', 'data-reason')).toBe('DOCUMENT_EXPIRED');
  expect(await page.textContent('[data-testid=decline-reason]')).toBe('Срок действия документа истёк. Используйте действующий.');
  expect(await page.textContent('[data-testid=attempts-left]')).toBe('Осталось попыток: 2');
  expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
  await shot(page, 'retry-1-declined-ru');

  // "Try again": the form, with what was typed before and the reason above it; the customer corrects the date and sends new photos.
  await Promise.all([page.waitForURL(`${session.verificationUrl}?retry=1`), page.click('[data-testid=try-again]')]);
  expect(await page.inputValue('input[name=lastName]')).toBe('Ivanova');
  expect(await page.getAttribute('[data-testid=decline-reason]', 'data-reason')).toBe('DOCUMENT_EXPIRED');
  await page.setInputFiles('input[name=document]', { name: 'passport.jpg', mimeType: 'image/jpeg', buffer: await idCard() });
  await page.setInputFiles('input[name=selfie]', { name: 'selfie.jpg', mimeType: 'image/jpeg', buffer: await selfie() });
  await page.fill('input[name=documentExpiresAt]', documentForm().documentExpiresAt!);
  expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
  await shot(page, 'retry-2-form-ru');
  await Promise.all([page.waitForURL(session.verificationUrl), page.click('[data-testid=submit]')]);
  await eventually(async () => expect(await page.textContent('[data-testid=status]')).toBe('Личность подтверждена'), 150_000);
  await shot(page, 'retry-3-approved-ru');
  expect(await get()).toMatchObject({ status: 'APPROVED', declineReason: null, retryRequired: false, attemptsUsed: 2, attemptsRemaining: 0 });
  expect(problems).toEqual([]);
  await page.close();
}, 300_000);
