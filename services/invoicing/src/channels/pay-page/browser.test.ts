import { join } from 'node:path';
import { eventually, openBrowser, phonePage, BUILT_START_MS, decodeQrDataUri, artefactsDir } from '@pay/testing';
import { invoiceColumns, setInvoiceStatus } from '../../../test/invoices/store';
import { newMerchant, startBuiltInvoicing, v1Request, v2Request, type TestMerchant } from '../../../test/test-support';

/** Screenshots of every step, kept as test artefacts (gitignored). */
const ARTIFACTS = artefactsDir('pay-page');

let ctx: Awaited<ReturnType<typeof startBuiltInvoicing>>;
let browser: Awaited<ReturnType<typeof openBrowser>>;
let m: TestMerchant;

beforeAll(async () => {
  ctx = await startBuiltInvoicing();
  browser = await openBrowser();
  m = await newMerchant(ctx.deps);
}, BUILT_START_MS);
afterAll(async () => {
  await browser?.close();
  await ctx?.close();
});

/** A phone-sized page that fails the test on any CSP violation or script error. */
const phone = () => phonePage(browser.context);

async function invoice(body: Record<string, unknown>) {
  const res = await v2Request(ctx.app, m, 'post', '/api/v2/invoices', { amount: 1490.9, description: 'Тёплый плед, 2 шт. <b>not bold</b>', ...body });
  expect(res.status).toBe(201);
  return res.body.invoice as { id: string; paymentLink: string; qrPayload?: string; originalPaymentUrl?: string };
}

const statusOf = async (id: string) =>
  (await invoiceColumns(ctx.deps.db, id, ['status']))!.status;

describe('the hosted payment page in Chromium, phone-sized', () => {
  it("a USD invoice shows USD, and the switch turns the page Russian and then Kazakh", async () => {
    expect((await v1Request(ctx.app, { apiKey: m.liveKey }, 'put', '/api/v1/settings/currencies', { enabledCurrencies: ['RUB', 'USD'] })).status).toBe(200);
    const usd = (await v1Request(ctx.app, m, 'post', '/api/v1/invoices', { amount: 49.9, currency: 'USD' })).body as { paymentUrl: string };
    const { page, problems } = await phone();
    await page.goto(usd.paymentUrl);
    expect(await page.title()).toBe(`Pay $49.90 — ${m.companyName}`);
    expect(await page.getByTestId('amount').textContent()).toBe('$49.90');
    await Promise.all([page.waitForURL(/\?lang=ru$/), page.click('[data-testid=languages] a[data-lang=ru]')]);
    expect(await page.getByTestId('amount').textContent()).toBe('49,90\u00a0$');
    expect(await page.getByTestId('status').textContent()).toBe('Ожидает оплаты');
    await Promise.all([page.waitForURL(/\?lang=kk$/), page.click('[data-testid=languages] a[data-lang=kk]')]);
    expect(await page.getByTestId('status').textContent()).toBe('Төлем күтілуде');
    expect(await page.locator('body').textContent()).not.toContain('₽');
    expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
    await page.screenshot({ path: join(ARTIFACTS, '0-usd-kk.png'), fullPage: true });
    expect(problems).toEqual([]);
    await page.close();
  });

  it('card: styled under the CSP, countdown ticking, Luhn checked in the page, then paid and shown PAID', async () => {
    const inv = await invoice({ paymentMethod: 'card', customerEmail: 'browser@example.ru' });
    const { page, problems } = await phone();
    await page.goto(inv.paymentLink);
    // Chromium asks for English (Accept-Language en-US): the amount in en-US's format.
    expect(await page.getByTestId('amount').textContent()).toBe('RUB\u00a01,490.90');
    expect(await page.getByTestId('description').textContent()).toBe('Тёплый плед, 2 шт. <b>not bold</b>');
    // The stylesheet applied (CSP let it in) and the page fits the phone: no sideways scroll.
    expect(await page.evaluate("getComputedStyle(document.querySelector('main')).maxWidth")).not.toBe('none');
    expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
    // The countdown script runs: it starts near an hour and goes down.
    const first = await page.getByTestId('countdown').textContent();
    expect(first).toMatch(/^(59:\d\d|1:00:00)$/);
    await eventually(async () => expect(await page.getByTestId('countdown').textContent()).not.toBe(first), 3000);
    await page.screenshot({ path: join(ARTIFACTS, '1-card-pending.png'), fullPage: true });

    // A mistyped number is caught in the page: nothing is sent.
    await page.getByTestId('card-number').fill('4242424242424241');
    await page.getByTestId('card-expiry').fill('12/30');
    await page.getByTestId('card-cvc').fill('123');
    await page.getByTestId('pay').click();
    await page.waitForSelector('[data-client-problem]:not([hidden])');
    expect(await page.textContent('[data-client-problem]')).toBe('Check the card number.');
    expect(await statusOf(inv.id)).toBe('PENDING');
    await page.screenshot({ path: join(ARTIFACTS, '2-card-luhn-refused.png'), fullPage: true });

    await page.getByTestId('card-number').fill('');
    await page.getByTestId('card-number').pressSequentially('4242424242424242');
    expect(await page.getByTestId('card-number').inputValue()).toBe('4242 4242 4242 4242');
    await Promise.all([page.waitForURL(inv.paymentLink), page.getByTestId('pay').click()]);
    await page.waitForSelector('[data-testid="status"]:text("PAID")');
    expect(await statusOf(inv.id)).toBe('PAID');
    await page.screenshot({ path: join(ARTIFACTS, '3-card-paid.png'), fullPage: true });
    expect(problems).toEqual([]);
    await page.close();
  });

  it('SBP: the QR shown decodes to the bank-app link, which pays; the page then shows PAID', async () => {
    const inv = await invoice({});
    const { page, problems } = await phone();
    await page.goto(inv.paymentLink);
    const src = await page.getByTestId('qr').getAttribute('src');
    expect(decodeQrDataUri(src!)).toBe(inv.qrPayload);
    expect(await page.evaluate("(() => { const img = document.querySelector('[data-testid=qr]'); return img.complete && img.naturalWidth > 0; })()")).toBe(true);
    await page.screenshot({ path: join(ARTIFACTS, '4-sbp-pending.png'), fullPage: true });
    await Promise.all([page.waitForURL(inv.qrPayload!), page.getByTestId('open-bank').click()]);
    await page.getByTestId('bank').selectOption('Sber (sandbox)');
    await page.screenshot({ path: join(ARTIFACTS, '5-sbp-bank-app.png'), fullPage: true });
    await Promise.all([page.waitForURL(inv.paymentLink), page.getByTestId('confirm').click()]);
    expect(await page.getByTestId('status').textContent()).toBe('PAID');
    await page.screenshot({ path: join(ARTIFACTS, '6-sbp-paid.png'), fullPage: true });
    expect(problems).toEqual([]);
    await page.close();
  });

  it('an open page turns PAID by itself when the payment arrives elsewhere', async () => {
    const inv = await invoice({});
    const { page, problems } = await phone();
    await page.goto(inv.paymentLink);
    expect(await page.getByTestId('status').textContent()).toBe('Awaiting payment');
    expect((await v2Request(ctx.app, m, 'post', `/api/v2/sandbox/invoices/${inv.id}/pay`, {})).status).toBe(200);
    await page.waitForSelector('[data-testid="status"]:text("PAID")', { timeout: 15_000 });
    expect(problems).toEqual([]);
    await page.close();
  });

  it('expired and cancelled invoices show their state', async () => {
    const cancelled = await invoice({ paymentMethod: 'card' });
    await v2Request(ctx.app, m, 'post', `/api/v2/invoices/${cancelled.id}/cancel`);
    const expired = await invoice({});
    await setInvoiceStatus(ctx.deps.db, expired.id, 'EXPIRED');
    const { page, problems } = await phone();
    for (const [inv, label, shot] of [
      [cancelled, 'CANCELLED', '7-cancelled.png'],
      [expired, 'EXPIRED', '8-expired.png'],
    ] as const) {
      await page.goto(inv.paymentLink);
      expect(await page.getByTestId('status').textContent()).toBe(label);
      expect(await page.locator('form').count()).toBe(0);
      await page.screenshot({ path: join(ARTIFACTS, shot), fullPage: true });
    }
    expect(problems).toEqual([]);
    await page.close();
  });

  it('v1 successUrl: paying sends the payer there at once; redirectUrl alone: PAID shown, then back to the shop after 5 s', async () => {
    const v1 = async (body: Record<string, unknown>) => {
      const res = await v1Request(ctx.app, m, 'post', '/api/v1/invoices', { amount: 12.5, currency: 'RUB', ...body });
      expect(res.status).toBe(201);
      return res.body as { id: string; paymentUrl: string };
    };
    const success = await v1({ successUrl: `${ctx.base}/healthz?paid=success`, redirectUrl: `${ctx.base}/healthz?back=1` });
    const { page, problems } = await phone();
    await page.goto(success.paymentUrl);
    await Promise.all([page.waitForURL(`${ctx.base}/pay/${success.id}/sbp`), page.getByTestId('open-bank').click()]);
    await Promise.all([page.waitForURL(`${ctx.base}/healthz?paid=success`), page.getByTestId('confirm').click()]);
    expect(problems.filter((p) => !p.includes('404'))).toEqual([]); // the "shop" (/healthz) has no favicon
    await page.close();
    const back = await v1({ redirectUrl: `${ctx.base}/healthz?back=1` });
    const next = await phone();
    await next.page.goto(`${ctx.base}/pay/${back.id}/sbp`);
    await Promise.all([next.page.waitForURL(back.paymentUrl), next.page.getByTestId('confirm').click()]);
    expect(await next.page.getByTestId('status').textContent()).toBe('PAID');
    expect(await next.page.getByTestId('return').getAttribute('href')).toBe(`${ctx.base}/healthz?back=1`);
    await next.page.screenshot({ path: join(ARTIFACTS, '9-v1-paid-return.png'), fullPage: true });
    expect(next.problems).toEqual([]); // checked before leaving for the shop, which has no favicon
    const t0 = Date.now();
    await next.page.waitForURL(`${ctx.base}/healthz?back=1`, { timeout: 10_000 });
    expect(Date.now() - t0).toBeGreaterThan(3000);
    await next.page.close();
  });
});
