import { join } from 'node:path';
import { eventsOf } from '@pay/webhooks';
import { eventually, openBrowser, BUILT_START_MS, artefactsDir } from '@pay/testing';
import { kycSessionRow } from '../../../test/kyc/store';
import { consoleSignIn, newMerchant, startBuiltInvoicing, v2Request, type TestMerchant } from '../../../test/test-support';
import { documentForm, idCard, postDocuments } from '../../../test/kyc/fixtures';

const ARTEFACTS = artefactsDir('console');

// The built invoicing service, as scripts/stack.sh runs it; its background work runs the check
// (the first one loads the face model and the zone reader: slow on a loaded machine).
let ctx: Awaited<ReturnType<typeof startBuiltInvoicing>>;
let base: string;
let browser: Awaited<ReturnType<typeof openBrowser>>;

beforeAll(async () => {
  [ctx, browser] = await Promise.all([startBuiltInvoicing(), openBrowser()]);
  base = ctx.base;
}, BUILT_START_MS);
afterAll(async () => {
  await browser?.close();
  await ctx?.close();
});

/** A session sent to manual review by the real check (a document without a machine-readable zone, and none typed). */
async function inReview(m: TestMerchant, email: string): Promise<string> {
  // A 503 (a connection not had within 5 s while the check runs on a loaded machine) is the
  // service's answer to resend, as a merchant would; any other failure is shown with its body.
  let created = await v2Request(ctx.app, m, 'post', '/api/v2/kyc/sessions', { customerEmail: email });
  for (let n = 0; created.status === 503 && n < 5; n++) created = await v2Request(ctx.app, m, 'post', '/api/v2/kyc/sessions', { customerEmail: email });
  expect({ status: created.status, body: created.status === 201 ? 'ok' : created.body }).toEqual({ status: 201, body: 'ok' });
  const s = created.body.session;
  expect((await postDocuments(ctx.app, s.sessionId, documentForm({ mrz: '' }), { document: await idCard({ zone: null }) })).status).toBe(303);
  await eventually(async () => expect((await kycSessionRow(ctx.deps.db, s.id)).check_state).toBe('MANUAL_REVIEW'), 150_000);
  return s.id;
}

const signIn = (m: TestMerchant) => consoleSignIn(ctx.app, m.apiKey);

it('console API: lists reviews, needs the CSRF token, decides only its own merchant’s sessions, once', async () => {
  const m = await newMerchant(ctx.deps);
  const id = await inReview(m, 'api@example.kz');
  const { agent, csrf } = await signIn(m);
  const list = await agent.get('/console/api/kyc/reviews');
  expect(list.body.data).toEqual([expect.objectContaining({ id, fullName: 'Anna Sergeevna Ivanova', level: 'basic', reason: expect.stringMatching(/machine-readable/) })]);
  expect((await agent.post(`/console/api/kyc/sessions/${id}/approve`)).status).toBe(403); // no CSRF token
  const other = await newMerchant(ctx.deps);
  const stranger = await signIn(other);
  const refused = await stranger.agent.post(`/console/api/kyc/sessions/${id}/approve`).set('X-CSRF-Token', stranger.csrf);
  expect(refused.status).toBe(404);
  expect((await agent.post(`/console/api/kyc/sessions/${id}/decline`).set('X-CSRF-Token', csrf).send({})).status).toBe(400); // reason required
  const ok = await agent.post(`/console/api/kyc/sessions/${id}/approve`).set('X-CSRF-Token', csrf);
  expect(ok.body).toEqual({ success: true, id, status: 'APPROVED' });
  expect((await agent.post(`/console/api/kyc/sessions/${id}/approve`).set('X-CSRF-Token', csrf)).status).toBe(422);
  expect((await agent.get('/console/api/kyc/reviews')).body.data).toEqual([]);
  const s = await kycSessionRow(ctx.deps.db, id);
  expect(s.decided_by).toMatch(/^console:/);
  expect((await eventsOf(ctx.deps.db, { merchantId: m.merchantId, isTest: true })).map((e) => e.type)).toEqual(['kyc.manual_review', 'kyc.passed']);
}, 240_000);

it('review page: shows the pictures, data and checks, and a reviewer declines with a reason', async () => {
  const m = await newMerchant(ctx.deps);
  const id = await inReview(m, 'page@example.kz');
  const page = await browser.context.newPage();
  const problems: string[] = [];
  // Any failed request but the browser's own favicon probe (the console declares none), and any script error.
  page.on('response', (r) => {
    if (r.status() >= 400 && !r.url().endsWith('/favicon.ico')) problems.push(`${r.status()} ${r.url()}`);
  });
  page.on('pageerror', (err) => problems.push(err.message));
  await page.goto(`${base}/console/sign-in`);
  await page.fill('input[name=apiKey]', m.apiKey);
  await Promise.all([page.waitForURL(`${base}/console/payments`), page.click('form[data-testid=sign-in] button')]);
  await Promise.all([page.waitForURL(`${base}/console/kyc`), page.click('[data-testid=nav-kyc]')]);
  const card = page.locator(`[data-review="${id}"]`);
  expect(await card.locator('h2').textContent()).toContain('Anna Sergeevna Ivanova');
  expect(await card.locator('img').count()).toBe(2);
  expect(await card.locator('img').first().evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)).toBeGreaterThan(0);
  expect(await card.textContent()).toContain('*****5678');
  await page.screenshot({ path: join(ARTEFACTS, 'kyc-review.png'), fullPage: true });
  await card.locator('[data-testid=decline-reason]').fill('Selfie does not match the document photo');
  await card.locator('[data-testid=decline]').click();
  await eventually(async () => expect(await page.locator('[data-testid=no-reviews]').count()).toBe(1));
  const s = await kycSessionRow(ctx.deps.db, id);
  expect(s).toMatchObject({ status: 'DECLINED', reason: 'Selfie does not match the document photo' });
  const rejected = await eventsOf(ctx.deps.db, { merchantId: m.merchantId, isTest: true }, 'kyc.rejected');
  expect((rejected[0]!.body.session as { reason: string }).reason).toBe('Selfie does not match the document photo');
  expect(problems).toEqual([]);
  await page.close();
}, 240_000);
