import request from 'supertest';
import { acquirerToken, type EmulatedPayment } from '@pay/tbank-emulator';
import { eventsOf } from '@pay/webhooks';
import { eventually } from '@pay/testing';
import { expireDueInvoices } from '../../modules/settlement/expiry';
import { reconcileRefunds, REFUND_STALE_MS } from '../../modules/refunds/refunds';
import { checkReceipt } from '../../modules/receipts/check';
import { moscowDay, multipartBody, receiptPdf } from '../../../test/receipts/test-fixtures';
import { ReceiptReaders } from '../../modules/receipts/readers';
import { invoiceRow, updateInvoice } from '../../../test/invoices/store';
import { latestReceiptId, receiptColumns } from '../../../test/receipts/store';
import { backdateRefund, refundRow } from '../../../test/refunds/store';
import { FAST_ACQUIRER, liveInvoicingForSuite, newMerchant, v1Request, v2Request, type TestMerchant } from '../../../test/test-support';
import { NOTIFICATION_PATH } from './notifications';

/**
 * Issue 28's money paths against the protocol emulator: each test is a way money was lost or
 * hidden (a forged receipt, a decline, a wrong amount, a late notification, a lost Cancel, a
 * refund made at the acquirer, an untrusted notification field, a refund the payer never saw).
 */
const TERMINAL = 'MoneyPathsTerminal';
const PASSWORD = 'money-paths-secret';
const live = liveInvoicingForSuite({ terminal: TERMINAL, password: PASSWORD, ...FAST_ACQUIRER });
const { ctx, emulator } = live;
const readers = new ReceiptReaders({ rusTrainedData: '/usr/share/tesseract-ocr/5/tessdata/rus.traineddata' });
let m: TestMerchant;

beforeAll(async () => {
  m = await newMerchant(ctx.deps, 'live');
});
afterAll(() => readers.close());
afterEach(() => {
  emulator.faults.muteNotifications = false;
  emulator.faults.dropRequest.clear();
  emulator.faults.dropAnswer.clear();
  emulator.releaseNotifications();
});

const create = (body: Record<string, unknown>) => v2Request(ctx.app, m, 'post', '/api/v2/invoices', body);
const get = async (id: string) => (await v2Request(ctx.app, m, 'get', `/api/v2/invoices/${id}`)).body.invoice;
const invoice = async (id: string) => (await invoiceRow(ctx.deps.db, id))!;
const payments = (orderId: string): EmulatedPayment[] => emulator.paymentsOfOrder(orderId);
const last = (orderId: string): EmulatedPayment => payments(orderId).at(-1)!;
const eventsFor = async (type: string, id: string) =>
  (await eventsOf(ctx.deps.db, { merchantId: m.merchantId, isTest: false }, type)).filter((e) => (e.body as { invoice: { id: string } }).invoice.id === id).map((e) => e.body as Record<string, any>);
const delivered = (paymentId: string, status: string) => emulator.notifications.filter((n) => n.paymentId === paymentId && n.status === status && n.delivered);
const notify = (fields: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  fetch(`${ctx.base}${NOTIFICATION_PATH}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ ...fields, Token: acquirerToken(fields, PASSWORD), ...extra }) });
const uploadFromPage = async (id: string, bytes: Buffer) => {
  const form = multipartBody('file', 'receipt.pdf', 'application/pdf', bytes);
  const res = await fetch(`${ctx.base}/pay/${id}/receipt`, { method: 'POST', headers: { 'Content-Type': form.contentType }, body: form.body, redirect: 'manual' });
  expect(res.status).toBe(303);
  return latestReceiptId(ctx.deps.db, id);
};

describe('issue 28: the money paths of a live T-Bank invoice', () => {
  it('finding 1: a self-typed receipt never pays a live invoice; it opens a receipt-only review; the same file is refused for another invoice; accepted, the acquirer payment is closed; a payment after that is flagged', async () => {
    const a = (await create({ amount: 1490.9, receiptRequired: true })).body.invoice;
    const b = (await create({ amount: 1490.9, receiptRequired: true })).body.invoice;
    const forged = await receiptPdf({ amount: '1490.90 RUB', date: `${moscowDay(0)} 12:00` });
    const r1 = await uploadFromPage(a.id, forged);
    expect(await checkReceipt(ctx.deps, readers, r1)).toBe('APPROVED');
    expect((await invoice(a.id)).status).toBe('PENDING');
    expect(await eventsFor('invoice.paid', a.id)).toHaveLength(0);
    const review = (await get(a.id)).review;
    expect(review).toMatchObject({ reason: 'receipt_only', amount: 1490.9, status: 'OPEN' });
    expect(await eventsFor('invoice.payment_review', a.id)).toHaveLength(1);

    // The same bytes for another invoice of that amount: refused, never a second review.
    const r2 = await uploadFromPage(b.id, forged);
    expect(await checkReceipt(ctx.deps, readers, r2)).toBe('REJECTED');
    expect((await receiptColumns(ctx.deps.db, r2, ['rejection_reason']))!.rejection_reason).toMatch(/already been uploaded/);
    expect((await get(b.id)).review).toBeNull();

    // The merchant decides the money came in: PAID, and the acquirer payment is closed.
    emulator.faults.dropRequest.add('Cancel'); // the close never reaches T-Bank
    const accepted = await v2Request(ctx.app, m, 'post', `/api/v2/invoices/${a.id}/review/accept`, {});
    expect(accepted.status).toBe(200);
    expect(accepted.body.invoice).toMatchObject({ status: 'PAID', review: null });
    expect(await eventsFor('invoice.paid', a.id)).toHaveLength(1);
    // The QR still open at the acquirer is paid: the money is flagged, never "already paid" and forgotten.
    emulator.pay(last(a.id).paymentId, { method: 'sbp' });
    await eventually(async () => expect((await get(a.id)).review).toMatchObject({ reason: 'duplicate_payment', amount: 1490.9, status: 'OPEN' }));
    expect(await eventsFor('invoice.payment_review', a.id)).toHaveLength(2);
    // Refunded by the merchant through the API: the acquirer gives it back.
    const refunded = await v2Request(ctx.app, m, 'post', `/api/v2/invoices/${a.id}/review/refund`, {});
    expect(refunded.status).toBe(200);
    expect(refunded.body.invoice.review).toBeNull();
    expect(last(a.id)).toMatchObject({ status: 'REFUNDED', remaining: 0 });
    expect((await invoice(a.id)).refunded_amount).toBe('0.00'); // the invoice's own payment is untouched

    // Nor does the acquirer's confirmation alone pay a receiptRequired invoice (decisions.md §10): it waits for its receipt (receipts/live-receipts.test.ts).
    const c = (await create({ amount: 1490.9, receiptRequired: true })).body.invoice;
    emulator.pay(last(c.id).paymentId, { method: 'sbp' });
    await eventually(async () => expect((await get(c.id)).attempts.map((x: { status: string }) => x.status)).toEqual(['CONFIRMED']));
    expect((await invoice(c.id)).status).toBe('PENDING');
    expect(await eventsFor('invoice.paid', c.id)).toHaveLength(0);
  });

  it('finding 2: a declined payment sends invoice.payment_failed; the invoice stays payable with a fresh Init and QR; attempts are listed; the retry pays', async () => {
    const inv = (await create({ amount: 640 })).body.invoice;
    const first = last(inv.id);
    emulator.reject(first.paymentId);
    await eventually(async () => expect(await eventsFor('invoice.payment_failed', inv.id)).toHaveLength(1));
    await eventually(() => expect(payments(inv.id)).toHaveLength(2));
    const fresh = last(inv.id);
    expect(fresh.paymentId).not.toBe(first.paymentId);
    await eventually(async () => expect((await get(inv.id)).qrPayload).toBe(`${emulator.url}/sbp/${fresh.paymentId}`));
    const now = await get(inv.id);
    expect(now.status).toBe('PENDING');
    expect(now.attempts.map((a: { status: string; declineReason: string | null }) => [a.status, a.declineReason])).toEqual([['DECLINED', 'REJECTED'], ['PENDING', null]]);
    const page = await fetch(`${ctx.base}/pay/${inv.id}`).then((r) => r.text());
    expect(page).toContain('data-testid="declined"');
    // The merchant's dashboard shows the attempts as GET does, the decline with its reason in words.
    const agent = request.agent(ctx.app);
    expect((await agent.post('/console/api/session').send({ apiKey: m.apiKey })).status).toBe(200);
    expect((await agent.get(`/console/api/invoices/${inv.id}/timeline`)).body.invoice.attempts).toEqual(now.attempts);
    const timeline = (await agent.get(`/console/payments/${inv.id}`)).text;
    expect([...timeline.matchAll(/data-kind="([a-z-]+)"/g)].map((x) => x[1])).toEqual(['created', 'declined', 'attempt']);
    expect(timeline).toContain('Declined (REJECTED): the payer’s bank or the acquirer refused the payment');
    emulator.pay(fresh.paymentId, { method: 'sbp' });
    await eventually(async () => expect((await invoice(inv.id)).status).toBe('PAID'));
    expect((await get(inv.id)).attempts.map((a: { status: string }) => a.status)).toEqual(['DECLINED', 'CONFIRMED']);
    expect((await eventsFor('invoice.payment_failed', inv.id))[0]).toMatchObject({ event: 'invoice.payment_failed', invoice: { id: inv.id, status: 'PENDING' } });
  });

  it('finding 3: another amount confirmed is a review on the invoice (v2 and v1), an invoice.payment_review, in the console; refunded through the API', async () => {
    const inv = (await create({ amount: 100 })).body.invoice;
    const p = last(inv.id);
    emulator.pay(p.paymentId, { method: 'sbp', amount: 9000 });
    await eventually(async () => expect((await get(inv.id)).review).toMatchObject({ reason: 'amount_mismatch', amount: 90, status: 'OPEN', takenAt: expect.any(String) }));
    expect((await invoice(inv.id)).status).toBe('PENDING');
    const v1 = await v1Request(ctx.app, m, 'get', `/api/v1/invoices/${inv.id}`);
    expect(v1.body.review).toMatchObject({ reason: 'amount_mismatch', amount: 90 });
    const events = await eventsFor('invoice.payment_review', inv.id);
    expect(events).toHaveLength(1);
    expect(events[0]!.review).toMatchObject({ reason: 'amount_mismatch', amount: 90 });
    const open = await v2Request(ctx.app, m, 'get', '/api/v2/reviews');
    expect(open.body.data.map((r: { invoiceId: string }) => r.invoiceId)).toContain(inv.id);
    // The console lists it, with accept and refund; refunded there.
    const agent = request.agent(ctx.app);
    const session = await agent.post('/console/api/session').send({ apiKey: m.apiKey });
    expect(session.status).toBe(200);
    const listed = await agent.get('/console/api/payment-reviews');
    expect(listed.body.data.find((r: { invoiceId: string }) => r.invoiceId === inv.id)).toMatchObject({ reason: 'amount_mismatch', amount: 90 });
    const html = (await agent.get('/console/payment-reviews')).text;
    expect(html).toContain(`data-payment-review="${inv.id}"`);
    expect(html).toContain(`/console/api/payment-reviews/${inv.id}/refund`);
    // The payments list points at it, and the invoice's timeline carries the same two actions.
    expect((await agent.get('/console/payments')).text).toMatch(/data-testid="reviews-waiting"><a href="\/console\/payment-reviews">\d+ payments? awaits? your review/);
    const timeline = (await agent.get(`/console/payments/${inv.id}`)).text;
    expect(timeline).toContain('data-kind="review"');
    expect(timeline).toContain(`data-api="/console/api/payment-reviews/${inv.id}/accept"`);
    expect(timeline).toContain(`data-api="/console/api/payment-reviews/${inv.id}/refund"`);
    const refunded = await agent.post(`/console/api/payment-reviews/${inv.id}/refund`).set('X-CSRF-Token', session.body.csrfToken).send({});
    expect(refunded.status).toBe(200);
    expect(emulator.payments.get(p.paymentId)).toMatchObject({ status: 'REFUNDED', remaining: 0 });
    expect((await get(inv.id)).review).toBeNull();
  });

  it('finding 3: paid after cancel is a review; accepting it keeps the money without changing the invoice', async () => {
    // A payment heard after the invoice was cancelled (the payer paid as the merchant cancelled) is a review, not lost.
    const inv2 = (await create({ amount: 160 })).body.invoice;
    await updateInvoice(ctx.deps.db, inv2.id, { status: 'CANCELLED', cancelled_at: new Date() });
    emulator.pay(last(inv2.id).paymentId, { method: 'sbp' });
    await eventually(async () => expect((await get(inv2.id)).review).toMatchObject({ reason: 'paid_after_cancel', amount: 160 }));
    const accepted = await v2Request(ctx.app, m, 'post', `/api/v2/invoices/${inv2.id}/review/accept`, {});
    expect(accepted.status).toBe(200);
    expect(accepted.body.invoice).toMatchObject({ status: 'CANCELLED', review: null });
  });

  it('finding 4: paid before expiresAt, heard after it: expiry asks GetState first and the invoice is PAID, not flagged', async () => {
    const inv = (await create({ amount: 275 })).body.invoice;
    const p = last(inv.id);
    emulator.faults.holdNotifications = true;
    emulator.pay(p.paymentId, { method: 'sbp', payerBank: 'Sber' });
    // expiresAt passes before the notification arrives.
    await updateInvoice(ctx.deps.db, inv.id, { expires_at: new Date(Date.now() - 1000) });
    await expireDueInvoices(ctx.deps);
    expect((await invoice(inv.id)).status).toBe('PAID');
    emulator.releaseNotifications();
    await eventually(() => expect(delivered(p.paymentId, 'CONFIRMED')).toHaveLength(1));
    expect((await get(inv.id)).review).toBeNull();
    expect(await eventsFor('invoice.paid', inv.id)).toHaveLength(1);
    expect(await eventsFor('invoice.expired', inv.id)).toHaveLength(0);
    // Not paid: the payment is closed at the acquirer and the invoice expires.
    const unpaid = (await create({ amount: 276 })).body.invoice;
    await updateInvoice(ctx.deps.db, unpaid.id, { expires_at: new Date(Date.now() - 1000) });
    await expireDueInvoices(ctx.deps);
    expect((await invoice(unpaid.id)).status).toBe('EXPIRED');
    expect(last(unpaid.id).status).toBe('CANCELED');
  });

  it('finding 4: a payment heard after the invoice expired is a paid_after_expiry review', async () => {
    const inv = (await create({ amount: 280 })).body.invoice;
    await updateInvoice(ctx.deps.db, inv.id, { status: 'EXPIRED', expired_at: new Date() });
    emulator.pay(last(inv.id).paymentId, { method: 'sbp' });
    await eventually(async () => expect((await get(inv.id)).review).toMatchObject({ reason: 'paid_after_expiry', amount: 280 }));
  });

  it('finding 5: an SBP refund whose Cancel never reached T-Bank is not SUCCEEDED because an earlier refund had the same amount', async () => {
    const inv = (await create({ amount: 600 })).body.invoice;
    const p = last(inv.id);
    emulator.pay(p.paymentId, { method: 'sbp' });
    await eventually(async () => expect((await invoice(inv.id)).status).toBe('PAID'));
    const first = await v2Request(ctx.app, m, 'post', `/api/v2/invoices/${inv.id}/refunds`, { amount: 100 });
    expect(first.body.refund.status).toBe('SUCCEEDED');
    emulator.faults.dropRequest.add('Cancel');
    const second = await v2Request(ctx.app, m, 'post', `/api/v2/invoices/${inv.id}/refunds`, { amount: 100 });
    expect(second.body.refund.status).toBe('PENDING');
    expect(p.remaining).toBe(50000); // T-Bank never saw it
    await backdateRefund(ctx.deps.db, second.body.refund.id, new Date(Date.now() - REFUND_STALE_MS - 1000));
    await reconcileRefunds(ctx.deps);
    const row = await refundRow(ctx.deps.db, second.body.refund.id);
    // Either still PENDING, or sent again and then truly done: what we count is what T-Bank refunded.
    expect(Number((await invoice(inv.id)).refunded_amount) * 100).toBe(60000 - p.remaining);
    if (row.status === 'SUCCEEDED') expect(p.remaining).toBe(40000);
    else expect(row.status).toBe('PENDING');
  });

  it('finding 6: refunds made in T-Bank’s own account update refundedAmount and send invoice.refunded', async () => {
    const inv = (await create({ amount: 800 })).body.invoice;
    const p = last(inv.id);
    emulator.pay(p.paymentId, { method: 'sbp' });
    await eventually(async () => expect((await invoice(inv.id)).status).toBe('PAID'));
    emulator.refundAtAcquirer(p.paymentId, 30000);
    await eventually(async () => expect((await invoice(inv.id)).refunded_amount).toBe('300.00'));
    emulator.refundAtAcquirer(p.paymentId);
    await eventually(async () => expect((await invoice(inv.id)).refunded_amount).toBe('800.00'));
    await eventually(() => expect(delivered(p.paymentId, 'REFUNDED')).toHaveLength(1));
    emulator.renotify(p.paymentId); // a duplicate changes nothing
    await eventually(() => expect(delivered(p.paymentId, 'REFUNDED')).toHaveLength(2));
    expect((await invoice(inv.id)).refunded_amount).toBe('800.00');
    const refunded = await eventsFor('invoice.refunded', inv.id);
    expect(refunded.map((e) => e.refund.amount)).toEqual([300, 500]);
  });

  it('finding 7: a notification whose OrderId is not its payment’s invoice is refused; Data.* is used only as GetState confirms it', async () => {
    const a = (await create({ amount: 300 })).body.invoice;
    const b = (await create({ amount: 300 })).body.invoice;
    const pa = last(a.id);
    emulator.faults.muteNotifications = true;
    emulator.pay(pa.paymentId, { method: 'sbp', payerBank: 'Sber' });
    const fields = { TerminalKey: TERMINAL, OrderId: b.id, Success: true, Status: 'CONFIRMED', PaymentId: Number(pa.paymentId), ErrorCode: '0', Amount: 30000 };
    const wrongOrder = await notify(fields);
    expect(wrongOrder.status).toBe(400);
    expect((await invoice(a.id)).status).toBe('PENDING');
    expect((await invoice(b.id)).status).toBe('PENDING');
    // The right OrderId, with a payer's bank the Token does not cover: GetState's word is kept.
    const right = await notify({ ...fields, OrderId: a.id }, { Data: { BankName: 'Forged <b>Bank</b>' } });
    expect([right.status, await right.text()]).toEqual([200, 'OK']);
    expect(await invoice(a.id)).toMatchObject({ status: 'PAID', payer_bank: 'Sber' });
  });

  it('finding 10: the payer’s page shows a full and a partial refund', async () => {
    const inv = (await create({ amount: 900 })).body.invoice;
    emulator.pay(last(inv.id).paymentId, { method: 'sbp' });
    await eventually(async () => expect((await invoice(inv.id)).status).toBe('PAID'));
    await v2Request(ctx.app, m, 'post', `/api/v2/invoices/${inv.id}/refunds`, { amount: 100 });
    const partly = await fetch(`${ctx.base}/pay/${inv.id}`).then((r) => r.text());
    expect(partly).toContain('data-status="partly_refunded"');
    await v2Request(ctx.app, m, 'post', `/api/v2/invoices/${inv.id}/refunds`, {});
    const full = await fetch(`${ctx.base}/pay/${inv.id}`).then((r) => r.text());
    expect(full).toContain('data-status="refunded"');
    expect(full).not.toContain('Payment received');
  });
});
