import { join } from 'node:path';
import request from 'supertest';
import { openBrowser, phonePage, BUILT_START_MS, artefactsDir } from '@pay/testing';
import { newMerchant, startBuiltInvoicing, v2Request, type TestMerchant } from '../../../test/test-support';
import { invoiceColumns } from '../../../test/invoices/store';
import { countReceiptsOf, receiptSourcesOf } from '../../../test/receipts/store';
import { moscowDay, receiptPdf, receiptPng } from '../../../test/receipts/test-fixtures';
import { assertPageInLanguages } from '../../../test/pages';

/** Screenshots of every step, kept as test artefacts (gitignored). */
const ARTIFACTS = artefactsDir('pay-page');

let ctx: Awaited<ReturnType<typeof startBuiltInvoicing>>;
let browser: Awaited<ReturnType<typeof openBrowser>>;
let m: TestMerchant;

beforeAll(async () => {
  // With the background: the outbox relay and the receipt worker check what the page uploads.
  ctx = await startBuiltInvoicing();
  browser = await openBrowser();
  m = await newMerchant(ctx.deps);
}, BUILT_START_MS);
afterAll(async () => {
  await browser?.close();
  await ctx?.close();
});

const statusOf = async (id: string) =>
  (await invoiceColumns(ctx.deps.db, id, ['status']))!.status;

describe('a receipt uploaded from the hosted payment page, in Chromium', () => {
  it(
    'a receiptRequired invoice: a wrong receipt is rejected with its reason on the page, a matching one makes the invoice PAID',
    async () => {
      const res = await v2Request(ctx.app, m, 'post', '/api/v2/invoices', { amount: 2750, receiptRequired: true, description: 'Лампа <i>x</i>' });
      expect(res.status).toBe(201);
      const inv = res.body.invoice as { id: string; paymentLink: string };
      const wrong = await receiptPng(browser.context, { amount: '2 570,00 ₽', date: `${moscowDay(0)} 09:41` });
      const right = await receiptPng(browser.context, { amount: '2 750,00 ₽', date: `${moscowDay(0)} 09:43`, bank: 'Т-Банк' });

      const { page, problems } = await phonePage(browser.context);
      await page.goto(inv.paymentLink);
      expect(await page.getByTestId('receipt-status').getAttribute('data-state')).toBe('none');
      await page.screenshot({ path: join(ARTIFACTS, 'receipt-1-asked.png'), fullPage: true });

      await page.getByTestId('receipt-file').setInputFiles({ name: 'IMG_0412.png', mimeType: 'image/png', buffer: wrong });
      await Promise.all([page.waitForURL(inv.paymentLink), page.getByTestId('upload-receipt').click()]);
      // The page polls and reloads itself when the check decides.
      await page.waitForSelector('[data-testid="receipt-status"][data-state="rejected"]', { timeout: 90_000 });
      expect(await page.getByTestId('receipt-status').getAttribute('data-rejection')).toBe('AMOUNT_MISMATCH');
      expect(await page.getByTestId('receipt-status').textContent()).toContain('not accepted: The receipt shows RUB\u00a02,570.00, not the amount of this invoice.');
      expect(await statusOf(inv.id)).toBe('PENDING');
      await page.screenshot({ path: join(ARTIFACTS, 'receipt-2-rejected.png'), fullPage: true });
      // The same rejection in the payer's language, naming what the receipt shows (issue 31).
      await assertPageInLanguages(page, inv.paymentLink, { allow: ['Лампа <i>x</i>', m.companyName], shots: { dir: ARTIFACTS, name: 'receipt-2-rejected' } });
      expect(await page.getByTestId('receipt-status').getAttribute('data-rejection')).toBe('AMOUNT_MISMATCH');
      await page.goto(inv.paymentLink);

      await page.getByTestId('receipt-file').setInputFiles({ name: 'IMG_0413.png', mimeType: 'image/png', buffer: right });
      await Promise.all([page.waitForURL(inv.paymentLink), page.getByTestId('upload-receipt').click()]);
      await page.waitForSelector('[data-testid="status"]:text("PAID")', { timeout: 90_000 });
      expect(await statusOf(inv.id)).toBe('PAID');
      await page.screenshot({ path: join(ARTIFACTS, 'receipt-3-paid.png'), fullPage: true });
      expect(await page.locator('[data-receipt-form]').count()).toBe(0);
      expect(problems).toEqual([]);
      await page.close();

      const list = await v2Request(ctx.app, m, 'get', `/api/v2/receipts?invoiceId=${inv.id}`);
      expect(list.body.data.map((r: { status: string }) => r.status)).toEqual(['APPROVED', 'REJECTED']);
      expect(await receiptSourcesOf(ctx.deps.db, inv.id)).toEqual(['page']);
    },
    200_000,
  );

  it('the page takes receipts only for a receiptRequired invoice still awaiting payment, and only real PNG/JPEG/PDF', async () => {
    const plain = (await v2Request(ctx.app, m, 'post', '/api/v2/invoices', { amount: 10 })).body.invoice as { id: string; paymentLink: string };
    const page = await browser.context.newPage();
    await page.goto(plain.paymentLink);
    expect(await page.locator('[data-receipt-form]').count()).toBe(0);
    await page.close();
    const pdf = await receiptPdf({ amount: '10.00 RUB', date: moscowDay(0) });
    const refused = await request(ctx.app).post(`/pay/${plain.id}/receipt`).attach('file', pdf, 'r.pdf');
    expect(refused.status).toBe(422);
    expect(refused.headers['content-type']).toMatch(/^text\/html/);
    expect(refused.text).toContain('data-refusal="notNow"');

    const required = (await v2Request(ctx.app, m, 'post', '/api/v2/invoices', { amount: 10, receiptRequired: true })).body.invoice as { id: string };
    const html = await request(ctx.app).post(`/pay/${required.id}/receipt`).attach('file', Buffer.from('<svg onload=alert(1)>'), { filename: 'r.png', contentType: 'image/png' });
    expect(html.status).toBe(400);
    expect(html.text).toContain('data-refusal="fileType"');
    expect(await countReceiptsOf(ctx.deps.db, [plain.id, required.id])).toBe(0);
  });
});
