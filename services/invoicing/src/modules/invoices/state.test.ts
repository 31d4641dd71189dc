import { ManualClock } from '@pay/runtime';
import { eventsOf } from '@pay/webhooks';
import { abandonIdempotencyClaim, clockSigner, invoicingAppForSuite, newMerchant, type TestMerchant } from '../../../test/test-support';
import { customersOf, setCustomersKyc } from '../../../test/customers/store';
import { invoiceColumns, invoiceRow, setInvoiceKycVerified, setInvoiceStatus } from '../../../test/invoices/store';
import { refundRowsOf, refundTotalsOf } from '../../../test/refunds/store';

const clock = new ManualClock(Date.now());
const ctx = invoicingAppForSuite({ clock });
const call = clockSigner(() => ctx.app, clock);

const owner = (m: TestMerchant) => ({ merchantId: m.merchantId, isTest: m.isTest });

async function newInvoice(m: TestMerchant, body: Record<string, unknown> = {}) {
  const res = await call(m, 'post', '/api/v2/invoices', { amount: 250.75, ...body });
  expect(res.status).toBe(201);
  return res.body.invoice as { id: string; invoiceNumber: string };
}
const pay = (m: TestMerchant, id: string, body: Record<string, unknown> = {}) => call(m, 'post', `/api/v2/sandbox/invoices/${id}/pay`, body);
const cancel = (m: TestMerchant, id: string) => call(m, 'post', `/api/v2/invoices/${id}/cancel`);
const refund = (m: TestMerchant, id: string, body: Record<string, unknown> = {}, opts: { headers?: Record<string, string> } = {}) =>
  call(m, 'post', `/api/v2/invoices/${id}/refunds`, body, opts);

/** Everything a refused change could have touched. */
async function snapshot(m: TestMerchant, id: string) {
  const invoice = await invoiceRow(ctx.deps.db, id);
  const customers = await customersOf(ctx.deps.db, m.merchantId);
  const refunds = await refundRowsOf(ctx.deps.db, id);
  return { invoice, customers, refunds, events: await eventsOf(ctx.deps.db, owner(m)) };
}

async function expectRefused(m: TestMerchant, id: string, act: () => Promise<{ status: number; body: { error: { code: string } } }>, status: number, code: string) {
  const before = await snapshot(m, id);
  const res = await act();
  expect(res.status).toBe(status);
  expect(res.body.error.code).toBe(code);
  expect(await snapshot(m, id)).toEqual(before);
}

describe('sandbox pay', () => {
  it('PAID with paidAt, the payment details kept, and invoice.paid with exactly the documented body (OpenAPI webhooks)', async () => {
    const m = await newMerchant(ctx.deps);
    const inv = await newInvoice(m, { customerEmail: 'Payer@Example.ru', customerPhone: '+79990001122', customerName: 'Payer', metadata: { orderId: 'A-1', tags: ['x'] } });
    clock.advance(5_000);
    const res = await pay(m, inv.id, { payerBank: 'T-Bank' });
    expect(res.status).toBe(200);
    const paidAt = clock.now().toISOString();
    expect(res.body.invoice).toMatchObject({ id: inv.id, status: 'PAID', paidAt, customer: { fullName: 'Payer', email: 'payer@example.ru', kycStatus: 'PENDING' } });
    const row = await invoiceColumns(ctx.deps.db, inv.id, ['paid_method', 'payer_bank', 'sbp_transaction_id']);
    expect(row).toMatchObject({ paid_method: 'sbp', payer_bank: 'T-Bank', sbp_transaction_id: expect.stringMatching(/^A[0-9A-F]{31}$/) });
    const events = await eventsOf(ctx.deps.db, owner(m), 'invoice.paid');
    expect(events).toHaveLength(1);
    expect(events[0]!.source).toBe('invoicing');
    expect(events[0]!.body).toEqual({
      event: 'invoice.paid',
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      type: 'invoice.paid',
      createdAt: expect.any(String),
      source: 'invoicing',
      timestamp: clock.now().getTime(),
      livemode: false,
      invoice: {
        id: inv.id,
        invoiceNumber: inv.invoiceNumber,
        amount: 250.75,
        currency: 'RUB',
        livemode: false,
        status: 'PAID',
        paymentMethod: 'sbp',
        payerBank: 'T-Bank',
        refundedAmount: 0,
        paidAt,
        metadata: { orderId: 'A-1', tags: ['x'] },
        customerEmail: 'Payer@Example.ru',
        customerPhone: '+79990001122',
      },
    });
  });

  it('a card invoice paid without details: no bank, no SBP id; metadata {} when none was given', async () => {
    const m = await newMerchant(ctx.deps);
    const inv = await newInvoice(m, { paymentMethod: 'card' });
    expect((await pay(m, inv.id)).status).toBe(200);
    const row = await invoiceColumns(ctx.deps.db, inv.id, ['paid_method', 'payer_bank', 'sbp_transaction_id', 'customer_id']);
    expect(row).toEqual({ paid_method: 'card', payer_bank: null, sbp_transaction_id: null, customer_id: null });
    const [event] = await eventsOf(ctx.deps.db, owner(m), 'invoice.paid');
    expect((event!.body as { invoice: unknown }).invoice).toMatchObject({ metadata: {}, customerEmail: null, customerPhone: null });
  });

  it('refuses, writing nothing: paying twice, an expired invoice (marked or only due), a cancelled one', async () => {
    const m = await newMerchant(ctx.deps);
    const paid = await newInvoice(m, { customerEmail: 'twice@example.ru' });
    expect((await pay(m, paid.id)).status).toBe(200);
    await expectRefused(m, paid.id, () => pay(m, paid.id), 422, 'INVOICE_ALREADY_PAID');

    const due = await newInvoice(m, { expiresInHours: 0.25 });
    clock.advance(15 * 60_000);
    await expectRefused(m, due.id, () => pay(m, due.id), 422, 'INVOICE_EXPIRED');
    await setInvoiceStatus(ctx.deps.db, due.id, 'EXPIRED');
    await expectRefused(m, due.id, () => pay(m, due.id), 422, 'INVOICE_EXPIRED');

    const cancelled = await newInvoice(m);
    expect((await cancel(m, cancelled.id)).status).toBe(200);
    await expectRefused(m, cancelled.id, () => pay(m, cancelled.id), 422, 'INVOICE_CANCELLED');
    await expectRefused(m, cancelled.id, () => pay(m, '00000000-0000-4000-8000-000000000000'), 404, 'NOT_FOUND');
  });

  it('refuses a kycRequired invoice until KYC is verified (KYC_REQUIRED), then pays it', async () => {
    const m = await newMerchant(ctx.deps);
    const first = await newInvoice(m, { customerEmail: 'kyc@example.ru' });
    const gated = await newInvoice(m, { customerEmail: 'KYC@example.ru', kycRequired: true });
    await expectRefused(m, gated.id, () => pay(m, gated.id), 422, 'KYC_REQUIRED');
    // The customer's own KYC counts; issue 10 sets it, here the row is set as it would.
    expect((await pay(m, first.id)).status).toBe(200);
    await setCustomersKyc(ctx.deps.db, m.merchantId, { kyc_status: 'VERIFIED' });
    const got = await call(m, 'get', `/api/v2/invoices/${gated.id}`);
    expect(got.body.invoice).toMatchObject({ kycRequired: true, kycVerified: true, customer: { email: 'kyc@example.ru', kycStatus: 'VERIFIED' } });
    expect((await pay(m, gated.id)).status).toBe(200);
    // An invoice created for a verified customer is kycVerified from the start.
    const next = await call(m, 'post', '/api/v2/invoices', { amount: 1, customerEmail: 'kyc@EXAMPLE.ru', kycRequired: true });
    expect(next.body.invoice).toMatchObject({ kycVerified: true, customer: null });
    expect((await call(m, 'post', '/api/v2/invoices', { amount: 1, customerEmail: 'other@example.ru' })).body.invoice.kycVerified).toBe(false);
    // A KYC session bound to the invoice counts as well.
    const bound = await newInvoice(m, { kycRequired: true });
    await expectRefused(m, bound.id, () => pay(m, bound.id), 422, 'KYC_REQUIRED');
    await setInvoiceKycVerified(ctx.deps.db, bound.id);
    expect((await pay(m, bound.id)).status).toBe(200);
  });

  it('is test mode only, and validates its body', async () => {
    const m = await newMerchant(ctx.deps);
    const inv = await newInvoice(m);
    const bad = await pay(m, inv.id, { method: 'cash' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toContainEqual({ field: 'method', message: 'must be one of: sbp, card' });
    const unknown = await pay(m, inv.id, { payer: 'x' });
    expect(unknown.status).toBe(400);
  });
});

describe('cancel', () => {
  it('cancels a PENDING invoice once, with invoice.cancelled', async () => {
    const m = await newMerchant(ctx.deps);
    const inv = await newInvoice(m, { customerEmail: 'c@example.ru' });
    const res = await cancel(m, inv.id);
    expect(res.status).toBe(200);
    expect(res.body.invoice).toMatchObject({ id: inv.id, status: 'CANCELLED', paidAt: null });
    const [event] = await eventsOf(ctx.deps.db, owner(m), 'invoice.cancelled');
    expect(event!.body).toEqual({
      event: 'invoice.cancelled',
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      type: 'invoice.cancelled',
      createdAt: expect.any(String),
      source: 'invoicing',
      timestamp: clock.now().getTime(),
      livemode: false,
      invoice: {
        id: inv.id,
        invoiceNumber: inv.invoiceNumber,
        amount: 250.75,
        currency: 'RUB',
        livemode: false,
        status: 'CANCELLED',
        paymentMethod: 'sbp',
        payerBank: null,
        refundedAmount: 0,
        paidAt: null,
        metadata: {},
        customerEmail: 'c@example.ru',
        customerPhone: null,
      },
    });
    await expectRefused(m, inv.id, () => cancel(m, inv.id), 422, 'INVOICE_CANCELLED');
  });

  it('refuses a paid, an expired, another merchant’s invoice, writing nothing', async () => {
    const m = await newMerchant(ctx.deps);
    const paid = await newInvoice(m);
    expect((await pay(m, paid.id)).status).toBe(200);
    await expectRefused(m, paid.id, () => cancel(m, paid.id), 422, 'INVOICE_ALREADY_PAID');
    const due = await newInvoice(m, { expiresInHours: 0.25 });
    clock.advance(16 * 60_000);
    await expectRefused(m, due.id, () => cancel(m, due.id), 422, 'INVOICE_EXPIRED');
    const mine = await newInvoice(m);
    const other = await newMerchant(ctx.deps);
    await expectRefused(m, mine.id, () => cancel(other, mine.id), 404, 'NOT_FOUND');
    await expect(cancel(m, mine.id).then((r) => r.status)).resolves.toBe(200);
  });
});

describe('refunds', () => {
  it('partial, then the rest by default: records, invoice.refunded each, the invoice stays PAID', async () => {
    const m = await newMerchant(ctx.deps);
    const inv = await newInvoice(m, { amount: 100.1, customerEmail: 'r@example.ru' });
    expect((await pay(m, inv.id)).status).toBe(200);
    const part = await refund(m, inv.id, { amount: 30.05, reason: 'damaged' });
    expect(part.status).toBe(201);
    expect(part.body).toEqual({
      success: true,
      refund: {
        id: expect.any(String),
        invoiceId: inv.id,
        amount: 30.05,
        currency: 'RUB',
        status: 'SUCCEEDED',
        reason: 'damaged',
        failureReason: null,
        createdAt: clock.now().toISOString(),
        settledAt: clock.now().toISOString(),
      },
      invoice: { id: inv.id, status: 'PAID', amount: 100.1, refundedAmount: 30.05, refundableAmount: 70.05 },
    });
    clock.advance(1000);
    const rest = await refund(m, inv.id);
    expect(rest.status).toBe(201);
    expect(rest.body.refund).toMatchObject({ amount: 70.05, status: 'SUCCEEDED', reason: null });
    expect(rest.body.invoice).toEqual({ id: inv.id, status: 'PAID', amount: 100.1, refundedAmount: 100.1, refundableAmount: 0 });
    const got = await call(m, 'get', `/api/v2/invoices/${inv.id}`);
    expect(got.body.invoice.status).toBe('PAID');

    const events = await eventsOf(ctx.deps.db, owner(m), 'invoice.refunded');
    expect(events.map((e) => e.body)).toEqual([
      {
        event: 'invoice.refunded',
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        type: 'invoice.refunded',
        createdAt: expect.any(String),
        source: 'invoicing',
        timestamp: expect.any(Number),
        livemode: false,
        invoice: expect.objectContaining({ id: inv.id, status: 'PAID', amount: 100.1, refundedAmount: 30.05, customerEmail: 'r@example.ru' }),
        refund: { ...part.body.refund },
      },
      expect.objectContaining({ refund: rest.body.refund }),
    ]);
    const list = await call(m, 'get', `/api/v2/invoices/${inv.id}/refunds`);
    expect(list.body).toEqual({ success: true, data: [part.body.refund, rest.body.refund] });

    // Nothing left: refused, nothing written.
    await expectRefused(m, inv.id, () => refund(m, inv.id), 422, 'REFUND_EXCEEDS_PAID');
    await expectRefused(m, inv.id, () => refund(m, inv.id, { amount: 0.01 }), 422, 'REFUND_EXCEEDS_PAID');
  });

  it('refunds once when the process died between reserving the refund and storing its answer', async () => {
    const m = await newMerchant(ctx.deps);
    const inv = await newInvoice(m, { amount: 80 });
    expect((await pay(m, inv.id)).status).toBe(200);
    const key = `refund-${inv.id}`;
    const first = await refund(m, inv.id, { amount: 30 }, { headers: { 'Idempotency-Key': key } });
    expect(first.status).toBe(201);
    await abandonIdempotencyClaim(ctx.deps.db, key);
    const retry = await refund(m, inv.id, { amount: 30 }, { headers: { 'Idempotency-Key': key } });
    expect(retry.status).toBe(201);
    expect(retry.body).toEqual(first.body);
    expect((await refundTotalsOf(ctx.deps.db, inv.id)).n).toBe(1);
    expect(await eventsOf(ctx.deps.db, owner(m), 'invoice.refunded')).toHaveLength(1);
    // Another key is another refund.
    const second = await refund(m, inv.id, { amount: 30 }, { headers: { 'Idempotency-Key': `${key}-2` } });
    expect(second.body.invoice).toMatchObject({ refundedAmount: 60, refundableAmount: 20 });
  });

  it('refuses more than is left, an unpaid invoice, and bad amounts', async () => {
    const m = await newMerchant(ctx.deps);
    const inv = await newInvoice(m, { amount: 50 });
    await expectRefused(m, inv.id, () => refund(m, inv.id), 422, 'INVOICE_NOT_PAID');
    expect((await pay(m, inv.id)).status).toBe(200);
    const over = await refund(m, inv.id, { amount: 50.01 });
    expect(over.status).toBe(422);
    expect(over.body.error).toMatchObject({ code: 'REFUND_EXCEEDS_PAID', details: [{ field: 'amount', message: 'must be at most 50' }] });
    for (const amount of [0, -1, 0.001]) expect((await refund(m, inv.id, { amount })).status).toBe(400);
    const cancelled = await newInvoice(m);
    await cancel(m, cancelled.id);
    await expectRefused(m, cancelled.id, () => refund(m, cancelled.id), 422, 'INVOICE_NOT_PAID');
    expect((await call(m, 'get', '/api/v2/invoices/00000000-0000-4000-8000-000000000000/refunds')).status).toBe(404);
  });
});
