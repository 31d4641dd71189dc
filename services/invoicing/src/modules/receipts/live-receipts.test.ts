import type { EmulatedPayment } from '@pay/tbank-emulator';
import { eventsOf } from '@pay/webhooks';
import { eventually } from '@pay/testing';
import { expireDueInvoices } from '../settlement/expiry';
import { checkReceipt } from './check';
import { moscowDay, multipartBody, receiptPdf } from '../../../test/receipts/test-fixtures';
import { ReceiptReaders } from './readers';
import { customerColumns } from '../../../test/customers/store';
import { invoiceColumns, invoiceRow, setInvoiceExpiresAt } from '../../../test/invoices/store';
import { latestReceiptId, receiptColumns } from '../../../test/receipts/store';
import { reviewsOf } from '../../../test/reviews/store';
import { FAST_ACQUIRER, liveInvoicingForSuite, newMerchant, v2Request, type TestMerchant } from '../../../test/test-support';

/**
 * decisions.md §10 for an invoice the acquirer collects (live, T-Bank, against its emulator):
 * a receiptRequired invoice is PAID when the acquirer has confirmed the payment AND a receipt
 * is APPROVED, whichever comes second; neither alone pays it. A confirmed payment whose
 * receipt never came is not lost at expiry: it is a receipt_missing review.
 */
const TERMINAL = 'LiveReceiptsTerminal';
const PASSWORD = 'live-receipts-secret';
const live = liveInvoicingForSuite({ terminal: TERMINAL, password: PASSWORD, ...FAST_ACQUIRER });
const { ctx, emulator } = live;
const readers = new ReceiptReaders({ rusTrainedData: '/usr/share/tesseract-ocr/5/tessdata/rus.traineddata' });
let m: TestMerchant;

beforeAll(async () => {
  m = await newMerchant(ctx.deps, 'live');
});
afterAll(() => readers.close());

const AMOUNT = 1490.9;
const create = async (email: string) => {
  const res = await v2Request(ctx.app, m, 'post', '/api/v2/invoices', { amount: AMOUNT, receiptRequired: true, customerEmail: email });
  expect(res.status).toBe(201);
  return res.body.invoice as { id: string; paymentLink: string };
};
const get = async (id: string) => (await v2Request(ctx.app, m, 'get', `/api/v2/invoices/${id}`)).body.invoice;
const invoice = async (id: string) => (await invoiceRow(ctx.deps.db, id))!;
const last = (orderId: string): EmulatedPayment => emulator.paymentsOfOrder(orderId).at(-1)!;
const eventsFor = async (type: string, id: string) =>
  (await eventsOf(ctx.deps.db, { merchantId: m.merchantId, isTest: false }, type)).filter((e) => (e.body as { invoice: { id: string } }).invoice.id === id).map((e) => e.body as Record<string, any>);
const delivered = (paymentId: string, status: string) => emulator.notifications.filter((n) => n.paymentId === paymentId && n.status === status && n.delivered);
/** The invoice's customer's totals; undefined while the invoice has no customer. */
const customerOf = async (id: string) => {
  const customerId = (await invoiceColumns(ctx.deps.db, id, ['customer_id']))?.customer_id;
  return customerId ? customerColumns(ctx.deps.db, customerId, ['total_payments', 'total_amount']) : undefined;
};
const page = (id: string) => fetch(`${ctx.base}/pay/${id}`).then((r) => r.text());
/** Each receipt is its own file (a second upload of the same bytes is refused as another invoice's). */
const receipt = (amount: string, n: number) => receiptPdf({ amount, date: `${moscowDay(0)} 12:${String(n % 60).padStart(2, '0')}` });
let receipts = 0;
const upload = async (id: string, amount = '1490.90 RUB') => {
  const form = multipartBody('file', 'receipt.pdf', 'application/pdf', await receipt(amount, ++receipts));
  const res = await fetch(`${ctx.base}/pay/${id}/receipt`, { method: 'POST', headers: { 'Content-Type': form.contentType }, body: form.body, redirect: 'manual' });
  expect(res.status).toBe(303);
  return latestReceiptId(ctx.deps.db, id);
};
const uploadAndCheck = async (id: string, amount = '1490.90 RUB') => {
  const receiptId = await upload(id, amount);
  return { id: receiptId, outcome: await checkReceipt(ctx.deps, readers, receiptId) };
};
/** The acquirer confirms the invoice's payment and we have heard it (the attempt shows CONFIRMED). */
const acquirerConfirms = async (id: string) => {
  const p = last(id);
  emulator.pay(p.paymentId, { method: 'sbp', payerBank: 'Sber' });
  await eventually(async () => expect((await get(id)).attempts.map((a: { status: string }) => a.status)).toEqual(['CONFIRMED']));
  return p;
};

describe('decisions.md §10: a live receiptRequired invoice is paid by the acquirer’s confirmation and an approved receipt', () => {
  it('confirmed first: not PAID on the confirmation alone (PENDING, the payment visible, the page asks for the receipt); the approved receipt then pays it once', async () => {
    const inv = await create('confirm-first@example.ru');
    const p = await acquirerConfirms(inv.id);
    await eventually(() => expect(delivered(p.paymentId, 'CONFIRMED')).toHaveLength(1));

    const waiting = await get(inv.id);
    expect(waiting).toMatchObject({ status: 'PENDING', paidAt: null, review: null, payerBank: 'Sber', paymentMethod: 'sbp' });
    expect(waiting.attempts).toEqual([expect.objectContaining({ status: 'CONFIRMED', amount: AMOUNT })]);
    expect(await eventsFor('invoice.paid', inv.id)).toHaveLength(0);
    expect(await customerOf(inv.id)).toBeUndefined();
    const html = await page(inv.id);
    expect(html).toContain('data-testid="payment-received"');
    expect(html).toContain('data-receipt-form');
    expect(html).not.toContain('data-testid="qr"');

    const { id: receiptId, outcome } = await uploadAndCheck(inv.id);
    expect(outcome).toBe('APPROVED');
    const paid = await invoice(inv.id);
    expect(paid.status).toBe('PAID');
    expect(paid.paid_at).not.toBeNull();
    expect(paid).toMatchObject({ payer_bank: 'Sber', paid_method: 'sbp' });
    expect(await customerOf(inv.id)).toEqual({ total_payments: 1, total_amount: '1490.90' });
    const events = await eventsFor('invoice.paid', inv.id);
    expect(events).toHaveLength(1);
    expect(events[0]!.invoice).toMatchObject({ status: 'PAID', paidAt: paid.paid_at!.toISOString() });
    expect((await get(inv.id)).review).toBeNull();

    // Exactly once: the receipt checked again, the acquirer notifying again.
    expect(await checkReceipt(ctx.deps, readers, receiptId)).toBe('already checked');
    emulator.renotify(p.paymentId);
    await eventually(() => expect(delivered(p.paymentId, 'CONFIRMED')).toHaveLength(2));
    expect(await eventsFor('invoice.paid', inv.id)).toHaveLength(1);
    expect(await customerOf(inv.id)).toEqual({ total_payments: 1, total_amount: '1490.90' });
    expect(await eventsFor('invoice.payment_review', inv.id)).toHaveLength(0);
  });

  it('receipt first: an approved receipt alone is a receipt_only review; the acquirer’s confirmation then pays it and closes the review', async () => {
    const inv = await create('receipt-first@example.ru');
    expect((await uploadAndCheck(inv.id)).outcome).toBe('APPROVED');
    expect((await invoice(inv.id)).status).toBe('PENDING');
    expect((await get(inv.id)).review).toMatchObject({ reason: 'receipt_only', status: 'OPEN' });
    expect(await eventsFor('invoice.paid', inv.id)).toHaveLength(0);

    await acquirerConfirms(inv.id);
    await eventually(async () => expect((await invoice(inv.id)).status).toBe('PAID'));
    expect(await eventsFor('invoice.paid', inv.id)).toHaveLength(1);
    expect(await customerOf(inv.id)).toEqual({ total_payments: 1, total_amount: '1490.90' });
    expect((await get(inv.id)).review).toBeNull();
    const reviews = await reviewsOf(ctx.deps.db, inv.id, ['reason', 'status', 'resolved_at']);
    expect(reviews).toEqual([{ reason: 'receipt_only', status: 'CLOSED', resolved_at: expect.any(Date) }]);
  });

  it('a rejected receipt after the confirmation leaves the invoice PENDING; the payer uploads another, which pays it', async () => {
    const inv = await create('rejected-after@example.ru');
    await acquirerConfirms(inv.id);
    expect((await uploadAndCheck(inv.id, '1409.90 RUB')).outcome).toBe('REJECTED');
    expect((await invoice(inv.id)).status).toBe('PENDING');
    expect(await eventsFor('invoice.paid', inv.id)).toHaveLength(0);
    const html = await page(inv.id);
    expect(html).toContain('data-state="rejected"');
    expect(html).toContain('data-receipt-form');

    expect((await uploadAndCheck(inv.id)).outcome).toBe('APPROVED');
    expect((await invoice(inv.id)).status).toBe('PAID');
    expect(await eventsFor('invoice.paid', inv.id)).toHaveLength(1);
  });

  it('confirmed, no receipt by expiresAt: a receipt_missing review with invoice.payment_review, never a silent expiry; accepted it is PAID', async () => {
    const inv = await create('no-receipt@example.ru');
    const p = await acquirerConfirms(inv.id);
    await setInvoiceExpiresAt(ctx.deps.db, inv.id, new Date(Date.now() - 1000));
    await expireDueInvoices(ctx.deps);

    const expired = await get(inv.id);
    expect(expired.status).toBe('EXPIRED');
    expect(expired.review).toMatchObject({ reason: 'receipt_missing', status: 'OPEN', amount: AMOUNT, takenAt: expect.any(String) });
    const reviewEvents = await eventsFor('invoice.payment_review', inv.id);
    expect(reviewEvents).toHaveLength(1);
    expect(reviewEvents[0]!.review).toMatchObject({ reason: 'receipt_missing', amount: AMOUNT });
    expect(await page(inv.id)).toContain('data-testid="under-review"');
    // The expiry runs again: nothing twice.
    await expireDueInvoices(ctx.deps);
    expect(await eventsFor('invoice.payment_review', inv.id)).toHaveLength(1);
    expect(await eventsFor('invoice.expired', inv.id)).toHaveLength(1);

    const accepted = await v2Request(ctx.app, m, 'post', `/api/v2/invoices/${inv.id}/review/accept`, {});
    expect(accepted.status).toBe(200);
    expect(accepted.body.invoice).toMatchObject({ status: 'PAID', review: null });
    expect(await eventsFor('invoice.paid', inv.id)).toHaveLength(1);
    expect(last(inv.id)).toMatchObject({ paymentId: p.paymentId, status: 'CONFIRMED' }); // accepting never refunds
  });

  it('confirmed, no receipt by expiresAt, refunded by the merchant: the acquirer returns the money', async () => {
    const inv = await create('no-receipt-refund@example.ru');
    const p = await acquirerConfirms(inv.id);
    await setInvoiceExpiresAt(ctx.deps.db, inv.id, new Date(Date.now() - 1000));
    await expireDueInvoices(ctx.deps);
    expect((await get(inv.id)).review).toMatchObject({ reason: 'receipt_missing' });
    const refunded = await v2Request(ctx.app, m, 'post', `/api/v2/invoices/${inv.id}/review/refund`, {});
    expect(refunded.status).toBe(200);
    expect(refunded.body.invoice).toMatchObject({ status: 'EXPIRED', review: null, refundedAmount: 0 });
    expect(emulator.payments.get(p.paymentId)).toMatchObject({ status: 'REFUNDED', remaining: 0 });
  });

  it('confirmed, a receipt uploaded in time but checked after expiresAt: the expiry waits for the check, which pays the invoice', async () => {
    const inv = await create('late-check@example.ru');
    await acquirerConfirms(inv.id);
    const receiptId = await upload(inv.id);
    // expiresAt passes just after the upload, before the check.
    const uploadedAt = (await receiptColumns(ctx.deps.db, receiptId, ['created_at']))!.created_at;
    await setInvoiceExpiresAt(ctx.deps.db, inv.id, new Date(uploadedAt.getTime() + 1));
    await expireDueInvoices(ctx.deps);
    expect((await invoice(inv.id)).status).toBe('PENDING');
    expect(await eventsFor('invoice.payment_review', inv.id)).toHaveLength(0);
    expect(await checkReceipt(ctx.deps, readers, receiptId)).toBe('APPROVED');
    expect((await invoice(inv.id)).status).toBe('PAID');
    await expireDueInvoices(ctx.deps);
    expect(await eventsFor('invoice.expired', inv.id)).toHaveLength(0);
    expect(await eventsFor('invoice.paid', inv.id)).toHaveLength(1);
  });
});
