import { eventually, openBrowser } from '@pay/testing';
import { eventsOf } from '@pay/webhooks';
import { customerColumns } from '../../../test/customers/store';
import { invoiceColumns } from '../../../test/invoices/store';
import { receiptColumns } from '../../../test/receipts/store';
import { invoicingAppForSuite, newMerchant, v2Request, type TestMerchant } from '../../../test/test-support';
import { moscowDay, noisePng, receiptPdf, receiptPng, textlessPdf, uploadReceiptRequest, type ReceiptText } from '../../../test/receipts/test-fixtures';

/**
 * The whole path on the real service: signed upload, outbox, relay, BullMQ worker, real OCR
 * (tesseract.js, rus+eng from disk) and real PDF text, the decision, and the payment of a
 * receiptRequired invoice. The receipts are made here: PNGs screenshotted from HTML in
 * headless Chromium, PDFs written with pdf-lib.
 */
const ctx = invoicingAppForSuite({ background: true });
let browser: Awaited<ReturnType<typeof openBrowser>>;
let m: TestMerchant;

beforeAll(async () => {
  browser = await openBrowser();
  m = await newMerchant(ctx.deps);
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

const AMOUNT = 1490.9;

async function newInvoice(body: Record<string, unknown> = {}) {
  const res = await v2Request(ctx.app, m, 'post', '/api/v2/invoices', { amount: AMOUNT, customerEmail: 'receipt-payer@example.ru', ...body });
  expect(res.status).toBe(201);
  return res.body.invoice as { id: string };
}

async function upload(invoiceId: string, bytes: Buffer, name: string) {
  const res = await uploadReceiptRequest(ctx.app, m, invoiceId, bytes, name);
  expect(res.status).toBe(201);
  expect(res.body.receipt.status).toBe('PENDING');
  return res.body.receipt as { id: string };
}

/** The receipt once the worker has decided it. */
async function decided(id: string) {
  return eventually(
    async () => {
      const res = await v2Request(ctx.app, m, 'get', `/api/v2/receipts/${id}`);
      expect(res.status).toBe(200);
      expect(res.body.receipt.status).not.toBe('PENDING');
      return res.body.receipt;
    },
    90_000,
    200,
  );
}

const invoiceStatus = async (id: string) => (await v2Request(ctx.app, m, 'get', `/api/v2/invoices/${id}`)).body.invoice as { status: string; paidAt: string | null };

/** The rejection's code, which the payer's page words (modules/receipts/rejections.ts). */
const rejectionCodeOf = async (id: string) => (await receiptColumns(ctx.deps.db, id, ['rejection_code']))!.rejection_code;

const today = () => `${moscowDay(0)} 14:05`;
const weeksAgo = () => `${moscowDay(-20)} 10:12`;

type Make = (r: ReceiptText) => Promise<Buffer>;
const kinds: { kind: string; name: string; make: Make; unreadable: () => Promise<Buffer>; amount: string; wrongAmount: string; bank: string }[] = [
  { kind: 'PNG', name: 'receipt.png', make: (r) => receiptPng(browser.context, r), unreadable: async () => noisePng(), amount: '1 490,90 ₽', wrongAmount: '1 409,90 ₽', bank: 'Sberbank' },
  { kind: 'PDF', name: 'receipt.pdf', make: receiptPdf, unreadable: textlessPdf, amount: '1,490.90 RUB', wrongAmount: '1,940.90 RUB', bank: 'Alfa-Bank' },
];

describe.each(kinds)('a $kind receipt the test makes', ({ name, make, unreadable, amount, wrongAmount, bank, kind }) => {
  it(
    'matching → APPROVED; wrong amount, wrong date, unreadable → REJECTED, each with its reason and what was read',
    async () => {
      const inv = await newInvoice();
      const matching = await upload(inv.id, await make({ amount, date: today() }), name);
      const wrongAmountR = await upload(inv.id, await make({ amount: wrongAmount, date: today() }), name);
      const wrongDate = await upload(inv.id, await make({ amount, date: weeksAgo() }), name);
      const garbage = await upload(inv.id, await unreadable(), name);

      const ok = await decided(matching.id);
      expect(ok).toMatchObject({ status: 'APPROVED', verifiedAmount: AMOUNT, verifiedAt: expect.any(String) });
      expect(ok.verificationDetails).toEqual({
        extractedAmount: AMOUNT,
        extractedDate: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
        confidence: kind === 'PDF' ? 1 : expect.any(Number),
        bank,
        paymentType: 'sbp',
      });
      const [d, mo, y] = moscowDay(0).split('.');
      expect(ok.verificationDetails.extractedDate).toBe(`${y}-${mo}-${d}`);
      if (kind === 'PNG') expect(ok.verificationDetails.confidence).toBeGreaterThan(0.6);

      const badAmount = await decided(wrongAmountR.id);
      expect(badAmount).toMatchObject({ status: 'REJECTED', verifiedAmount: null });
      expect(badAmount.verificationDetails.extractedAmount).not.toBe(AMOUNT);
      expect(badAmount.verificationDetails.rejectionReason).toMatch(/^Amount mismatch: the receipt shows \d+\.\d\d, the invoice is for 1490\.90$/);
      // Beside the merchant's text, the code the payer's page words in the payer's language.
      expect(await rejectionCodeOf(wrongAmountR.id)).toBe('AMOUNT_MISMATCH');
      expect(await rejectionCodeOf(matching.id)).toBeNull();

      const badDate = await decided(wrongDate.id);
      expect(badDate).toMatchObject({ status: 'REJECTED', verifiedAmount: null });
      expect(badDate.verificationDetails.extractedAmount).toBe(AMOUNT);
      expect(badDate.verificationDetails.rejectionReason).toMatch(/^Date mismatch: the receipt is dated \d{4}-\d{2}-\d{2}, outside/);
      expect(await rejectionCodeOf(wrongDate.id)).toBe('DATE_MISMATCH');

      const unread = await decided(garbage.id);
      expect(unread).toMatchObject({ status: 'REJECTED', verifiedAmount: null });
      expect(unread.verificationDetails.rejectionReason).toMatch(/^Unreadable: /);
      expect(await rejectionCodeOf(garbage.id)).toBe('UNREADABLE');

      // Not receiptRequired: checked and recorded, no state change.
      expect((await invoiceStatus(inv.id)).status).toBe('PENDING');
      expect(await eventsOf(ctx.deps.db, { merchantId: m.merchantId, isTest: true }, 'invoice.paid')).toEqual([]);
    },
    180_000,
  );
});

it('a JPEG photo of a matching receipt is read the same way', async () => {
  const inv = await newInvoice();
  const r = await upload(inv.id, await receiptPng(browser.context, { amount: '1 490,90 ₽', date: today(), bank: 'ВТБ' }, 'jpeg'), 'IMG_0001.jpg');
  const done = await decided(r.id);
  expect(done).toMatchObject({ status: 'APPROVED', verifiedAmount: AMOUNT });
  expect(done.verificationDetails.bank).toBe('VTB');
  const row = await receiptColumns(ctx.deps.db, r.id, ['content_type']);
  expect(row!.content_type).toBe('image/jpeg');
}, 60_000);

describe('a receiptRequired invoice', () => {
  it(
    'stays PENDING after a rejected receipt, then a matching one makes it PAID with paidAt, the customer counted and invoice.paid',
    async () => {
      const inv = await newInvoice({ receiptRequired: true, customerEmail: 'needs-receipt@example.ru' });
      const wrong = await upload(inv.id, await receiptPng(browser.context, { amount: '1 400,00 ₽', date: today() }), 'r.png');
      expect((await decided(wrong.id)).status).toBe('REJECTED');
      expect((await invoiceStatus(inv.id)).status).toBe('PENDING');

      const right = await upload(inv.id, await receiptPng(browser.context, { amount: '1 490,90 ₽', date: today(), bank: 'Т-Банк' }), 'r.png');
      const approved = await decided(right.id);
      expect(approved.status).toBe('APPROVED');
      expect(approved.verificationDetails.bank).toBe('T-Bank');
      const invoice = await invoiceStatus(inv.id);
      expect(invoice.status).toBe('PAID');
      // Paid in the very transaction that approved the receipt.
      expect(invoice.paidAt).toBe(approved.verifiedAt);
      const events = await eventsOf(ctx.deps.db, { merchantId: m.merchantId, isTest: true }, 'invoice.paid');
      expect(events.map((e) => (e.body as { invoice: { id: string } }).invoice.id)).toEqual([inv.id]);
      expect((events[0]!.body as { invoice: { status: string; paidAt: string } }).invoice).toMatchObject({ status: 'PAID', paidAt: approved.verifiedAt });
      const paid = await invoiceColumns(ctx.deps.db, inv.id, ['payer_bank', 'paid_method', 'customer_id']);
      const customer = await customerColumns(ctx.deps.db, paid!.customer_id!, ['total_payments']);
      expect({ payer_bank: paid!.payer_bank, paid_method: paid!.paid_method, total_payments: customer!.total_payments }).toEqual({ payer_bank: 'T-Bank', paid_method: 'sbp', total_payments: 1 });
    },
    120_000,
  );

  it(
    'a matching receipt for a cancelled invoice is REJECTED with the reason, and nothing is paid',
    async () => {
      const inv = await newInvoice({ receiptRequired: true, customerEmail: 'cancelled@example.ru' });
      expect((await v2Request(ctx.app, m, 'post', `/api/v2/invoices/${inv.id}/cancel`)).status).toBe(200);
      const r = await upload(inv.id, await receiptPdf({ amount: '1490.90 RUB', date: today() }), 'r.pdf');
      const done = await decided(r.id);
      expect(done.status).toBe('REJECTED');
      expect(done.verificationDetails.rejectionReason).toMatch(/^The receipt matches, but the invoice cannot be paid: .*cancelled/);
      expect(await rejectionCodeOf(r.id)).toBe('NOT_PAYABLE');
      expect((await invoiceStatus(inv.id)).status).toBe('CANCELLED');
    },
    60_000,
  );
});
