/**
 * Issue 28, finding 8: every invoice object and event says what was paid, in which currency
 * and mode, how, from which bank, and what was refunded. Live mode runs on the T-Bank
 * protocol emulator on loopback; test mode on the sandbox.
 */
import { eventually } from '@pay/testing';
import { eventsOf, type StoredEvent } from '@pay/webhooks';
import { invoicingEvents } from '../../event-catalogue';
import { invoiceColumns } from '../../../test/invoices/store';
import { liveInvoicingForSuite, newMerchant, v1Request, v2Request, type TestMerchant } from '../../../test/test-support';

const { ctx, emulator } = liveInvoicingForSuite({
  terminal: 'ObjectsTerminal',
  password: 'objects-secret-1',
  emulator: { retryDelaysMs: [100, 200, 400, 800, 1600, 3200] },
});

const owner = (m: TestMerchant) => ({ merchantId: m.merchantId, isTest: m.isTest });
const ofInvoice = (events: StoredEvent[], id: string) => events.filter((e) => (e.body as { invoice: { id: string } }).invoice.id === id);

describe('a v1 invoice in dollars (test mode)', () => {
  it('its invoice.paid says USD, test mode, how and from which bank it was paid, and nothing refunded; the schema speaks of its currency, not rubles', async () => {
    const m = await newMerchant(ctx.deps);
    expect((await v1Request(ctx.app, { apiKey: m.liveKey }, 'put', '/api/v1/settings/currencies', { enabledCurrencies: ['RUB', 'USD'] })).status).toBe(200);
    const created = await v1Request(ctx.app, m, 'post', '/api/v1/invoices', { amount: 99.99, currency: 'USD' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ currency: 'USD', livemode: false, paymentMethod: 'sbp', refundedAmount: 0 });
    expect((await v1Request(ctx.app, m, 'post', `/api/v1/sandbox/invoices/${created.body.id}/pay`, { payerBank: 'Sber' })).status).toBe(200);

    const [paid] = ofInvoice(await eventsOf(ctx.deps.db, owner(m), 'invoice.paid'), created.body.id);
    expect(paid!.body).toMatchObject({
      event: 'invoice.paid',
      livemode: false,
      invoice: { id: created.body.id, amount: 99.99, currency: 'USD', livemode: false, status: 'PAID', paymentMethod: 'sbp', payerBank: 'Sber', refundedAmount: 0 },
    });
    const got = await v1Request(ctx.app, m, 'get', `/api/v1/invoices/${created.body.id}`);
    expect(got.body).toMatchObject({ currency: 'USD', livemode: false, paymentMethod: 'sbp', payerBank: 'Sber', refundedAmount: 0, sbpTransactionId: expect.any(String) });

    const amount = (invoicingEvents.bodies['invoice.paid'].properties.invoice as unknown as { properties: { amount: { description: string } } }).properties.amount;
    expect(amount.description).not.toMatch(/ruble/i);
    expect(amount.description).toMatch(/currency/);
  });

  it('every invoicing event says its mode, KYC ones included', async () => {
    const m = await newMerchant(ctx.deps);
    const inv = (await v2Request(ctx.app, m, 'post', '/api/v2/invoices', { amount: 10 })).body.invoice;
    expect((await v2Request(ctx.app, m, 'post', `/api/v2/invoices/${inv.id}/cancel`)).status).toBe(200);
    const [cancelled] = ofInvoice(await eventsOf(ctx.deps.db, owner(m), 'invoice.cancelled'), inv.id);
    expect(cancelled!.body).toMatchObject({ livemode: false, invoice: { currency: 'RUB', livemode: false, paymentMethod: 'sbp', payerBank: null, refundedAmount: 0 } });
    // The schema of every kind (the OpenAPI webhooks section) requires livemode beside the object.
    for (const [kind, schema] of Object.entries(invoicingEvents.bodies)) expect([kind, schema.required]).toEqual([kind, expect.arrayContaining(['event', 'timestamp', 'livemode'])]);
  });
});

describe('a live SBP invoice paid at the acquirer and partly refunded', () => {
  it('v2 GET, v1 GET, the list and invoice.refunded carry refundedAmount, payerBank, sbpTransactionId, paymentMethod and livemode', async () => {
    const m = await newMerchant(ctx.deps, 'live');
    const created = await v2Request(ctx.app, m, 'post', '/api/v2/invoices', { amount: 1000 });
    expect(created.status).toBe(201);
    const inv = created.body.invoice;
    expect(inv).toMatchObject({ currency: 'RUB', livemode: true, paymentMethod: 'sbp', payerBank: null, refundedAmount: 0 });
    const [payment] = emulator.paymentsOfOrder(inv.id);
    emulator.pay(payment!.paymentId, { method: 'sbp', payerBank: 'Sber' });
    await eventually(async () => expect((await invoiceColumns(ctx.deps.db, inv.id, ['status']))?.status).toBe('PAID'));

    const refund = await v2Request(ctx.app, m, 'post', `/api/v2/invoices/${inv.id}/refunds`, { amount: 250.5 });
    expect([refund.status, refund.body.refund.status]).toEqual([201, 'SUCCEEDED']);

    const facts = { currency: 'RUB', livemode: true, paymentMethod: 'sbp', payerBank: 'Sber', refundedAmount: 250.5 };
    const got = await v2Request(ctx.app, m, 'get', `/api/v2/invoices/${inv.id}`);
    expect(got.body.invoice).toMatchObject({ ...facts, status: 'PAID', sbpTransactionId: payment!.sbpPaymentId });
    const list = await v2Request(ctx.app, m, 'get', '/api/v2/invoices');
    expect(list.body.data.find((i: { id: string }) => i.id === inv.id)).toMatchObject(facts);
    const v1 = await v1Request(ctx.app, m, 'get', `/api/v1/invoices/${inv.id}`);
    expect(v1.body).toMatchObject({ ...facts, status: 'paid', sbpTransactionId: payment!.sbpPaymentId });

    const live = { merchantId: m.merchantId, isTest: false };
    const [paid] = ofInvoice(await eventsOf(ctx.deps.db, live, 'invoice.paid'), inv.id);
    expect(paid!.body).toMatchObject({ livemode: true, invoice: { ...facts, refundedAmount: 0 } });
    const [refunded] = ofInvoice(await eventsOf(ctx.deps.db, live, 'invoice.refunded'), inv.id);
    expect(refunded!.body).toMatchObject({ livemode: true, invoice: facts, refund: { amount: 250.5, currency: 'RUB' } });
  });
});
