import { TBankEmulator, acquirerToken, type EmulatedPayment } from '@pay/tbank-emulator';
import { money } from '@pay/money';
import { eventsOf } from '@pay/webhooks';
import { loadInvoicingConfig } from '../../load-config';
import { reconcileRefunds, REFUND_STALE_MS } from '../../modules/refunds/refunds';
import { eventually, decodeQrDataUri } from '@pay/testing';
import { countInvoices, invoiceIdsWithKey, invoiceRow } from '../../../test/invoices/store';
import { acquirerNotificationsOf, acquirerPaymentOf } from '../../../test/payments/store';
import { backdateRefund, refundRow } from '../../../test/refunds/store';
import { newMerchant, startListeningInvoicingApp, v2Request, type TestMerchant } from '../../../test/test-support';
import { tbankProvidersOf } from '.';
import { tbankSettingsOf } from './settings';
import { holdLease } from '../store/leases';
import { NOTIFICATION_PATH } from './notifications';
import { reconcileTBankPayments } from './reconcile';
import { tbankReconcilers } from './reconciler-loop';

const TERMINAL = 'LiveTerminal';
const PASSWORD = 'emulator-secret-42';
const DEMO_TERMINAL = 'TestTerminalDEMO';
const DEMO_PASSWORD = 'demo-secret-7';

/**
 * The adapter against the protocol emulator on loopback: the service listens on a real port
 * (the emulator's notifications reach it at PUBLIC_URL), live mode is T-Bank.
 */
const emulator = new TBankEmulator({ terminals: { [TERMINAL]: PASSWORD, [DEMO_TERMINAL]: DEMO_PASSWORD }, retryDelaysMs: [100, 200, 400, 800, 1600, 3200] });
let ctx: Awaited<ReturnType<typeof startListeningInvoicingApp>>;
let m: TestMerchant;

beforeAll(async () => {
  await emulator.start();
  ctx = await startListeningInvoicingApp({
    env: {
      LIVE_PAYMENT_PROVIDER: 'tbank',
      TBANK_API_URL: emulator.apiUrl,
      TBANK_TERMINAL_KEY: TERMINAL,
      TBANK_PASSWORD: PASSWORD,
      TBANK_TIMEOUT_MS: '3000',
      TEST_PAYMENT_PROVIDER: 'tbank',
      TBANK_TEST_TERMINAL_KEY: DEMO_TERMINAL,
      TBANK_TEST_PASSWORD: DEMO_PASSWORD,
      TBANK_RECONCILE_AFTER_MS: '0',
    },
  });
  m = await newMerchant(ctx.deps, 'live');
});
afterAll(async () => {
  await ctx?.close();
  await emulator.stop();
});
afterEach(() => emulator.clearFaults());

const provider = () => tbankProvidersOf(ctx.deps.providers).find((p) => p.client.terminalKey === TERMINAL)!;
const create = (body: Record<string, unknown>, headers: Record<string, string> = {}) => v2Request(ctx.app, m, 'post', '/api/v2/invoices', body, { headers });
const invoice = async (id: string) => (await invoiceRow(ctx.deps.db, id))!;
const only = (orderId: string): EmulatedPayment => {
  const payments = emulator.paymentsOfOrder(orderId);
  expect(payments).toHaveLength(1);
  return payments[0]!;
};
const paidEvents = async (id: string) => (await eventsOf(ctx.deps.db, { merchantId: m.merchantId, isTest: false }, 'invoice.paid')).filter((e) => (e.body as { invoice: { id: string } }).invoice.id === id);
const delivered = (paymentId: string, status: string) => emulator.notifications.filter((n) => n.paymentId === paymentId && n.status === status && n.delivered);

describe('T-Bank acquiring against the protocol emulator', () => {
  it('SBP: Init with the exact kopecks, order, expiry, notification URL and customer; GetQr payload as qrPayload and QR; paid by the bank → PAID once', async () => {
    const res = await create({ amount: 1234.56, description: 'Order 77', customerEmail: 'payer@example.ru', customerPhone: '+79991234567', expiresInHours: 2 });
    expect(res.status).toBe(201);
    const inv = res.body.invoice;
    const p = only(inv.id);
    expect(p).toMatchObject({ amount: 123456, orderId: inv.id, description: 'Order 77', notificationUrl: `${ctx.base}${NOTIFICATION_PATH}`, data: { Email: 'payer@example.ru', Phone: '+79991234567' } });
    // RedirectDueDate = expiresAt (the documented format has whole seconds).
    expect(Math.abs(p.redirectDueDate.getTime() - Date.parse(inv.expiresAt))).toBeLessThan(1000);
    expect(inv.qrPayload).toBe(`${emulator.url}/sbp/${p.paymentId}`);
    expect(decodeQrDataUri(inv.qrCode)).toBe(inv.qrPayload);
    expect(await acquirerPaymentOf(ctx.deps.db, inv.id)).toMatchObject({ payment_id: p.paymentId, status: 'NEW' });

    emulator.pay(p.paymentId, { method: 'sbp', payerBank: 'Sber' });
    await eventually(async () => expect((await invoice(inv.id)).status).toBe('PAID'));
    const row = await invoice(inv.id);
    expect(row).toMatchObject({ paid_method: 'sbp', payer_bank: 'Sber', sbp_transaction_id: p.sbpPaymentId });
    await eventually(() => expect(delivered(p.paymentId, 'CONFIRMED')).toHaveLength(1));
    expect(await paidEvents(inv.id)).toHaveLength(1);
  });

  it('card: originalPaymentUrl is the acquirer form; the hosted page sends the payer there (no card form of ours); paid there → PAID once', async () => {
    const res = await create({ amount: 500, paymentMethod: 'card' });
    expect(res.status).toBe(201);
    const inv = res.body.invoice;
    const p = only(inv.id);
    expect(inv.originalPaymentUrl).toBe(`${emulator.url}/pay/${p.paymentId}`);
    expect(inv.qrPayload).toBeUndefined();

    const page = await fetch(`${ctx.base}/pay/${inv.id}`).then((r) => r.text());
    expect(page).toContain(`href="${inv.originalPaymentUrl}"`);
    expect(page).not.toContain('name="number"');
    // Our card form does not take cards for a live acquirer.
    const typed = await fetch(`${ctx.base}/pay/${inv.id}/card`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'number=4242424242424242&expiry=12%2F30&cvc=123' });
    expect(typed.status).toBe(422);

    // The payer on the acquirer's form.
    expect((await fetch(inv.originalPaymentUrl)).status).toBe(200);
    const paid = await fetch(inv.originalPaymentUrl, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'card=4300000000000777&action=pay' });
    expect(paid.status).toBe(200);
    await eventually(async () => expect((await invoice(inv.id)).status).toBe('PAID'));
    expect((await invoice(inv.id)).paid_method).toBe('card');
    expect(await paidEvents(inv.id)).toHaveLength(1);
  });

  it('refuses a forged notification (bad Token, or a Token over other values): 403, logged, nothing changes', async () => {
    const inv = (await create({ amount: 300 })).body.invoice;
    const p = only(inv.id);
    // Paid at the acquirer, its notification lost: only a genuine notification (or the reconciler) may tell.
    emulator.faults.muteNotifications = true;
    emulator.pay(p.paymentId, { method: 'sbp' });
    const fields = { TerminalKey: TERMINAL, OrderId: inv.id, Success: true, Status: 'CONFIRMED', PaymentId: Number(p.paymentId), ErrorCode: '0', Amount: 30000 };
    const post = (body: unknown) => fetch(`${ctx.base}${NOTIFICATION_PATH}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    for (const forged of [
      { ...fields, Token: acquirerToken(fields, 'not-the-password') },
      { ...fields, Amount: 1, Token: acquirerToken(fields, PASSWORD) },
      { ...fields, Token: 'f'.repeat(64) },
      { ...fields },
      { ...fields, TerminalKey: 'OtherTerminal', Token: acquirerToken({ ...fields, TerminalKey: 'OtherTerminal' }, PASSWORD) },
    ]) {
      const res = await post(forged);
      expect(res.status).toBe(403);
      expect(await res.text()).not.toBe('OK');
    }
    expect((await invoice(inv.id)).status).toBe('PENDING');
    expect(await acquirerNotificationsOf(ctx.deps.db, p.paymentId)).toHaveLength(0);
    // The genuine one is taken.
    const genuine = await post({ ...fields, Token: acquirerToken(fields, PASSWORD) });
    expect([genuine.status, await genuine.text()]).toEqual([200, 'OK']);
    expect((await invoice(inv.id)).status).toBe('PAID');
  });

  it('a duplicated, a late and an out-of-order notification are applied once', async () => {
    const inv = (await create({ amount: 410 })).body.invoice;
    const p = only(inv.id);
    emulator.pay(p.paymentId, { method: 'sbp' });
    await eventually(() => expect(delivered(p.paymentId, 'CONFIRMED')).toHaveLength(1));
    emulator.renotify(p.paymentId); // the same CONFIRMED again
    await eventually(() => expect(delivered(p.paymentId, 'CONFIRMED')).toHaveLength(2));
    // A stale NEW arriving after CONFIRMED (out of order) does not move the payment back.
    const stale = { TerminalKey: TERMINAL, OrderId: inv.id, Success: true, Status: 'NEW', PaymentId: Number(p.paymentId), ErrorCode: '0', Amount: 41000 };
    const res = await fetch(`${ctx.base}${NOTIFICATION_PATH}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ ...stale, Token: acquirerToken(stale, PASSWORD) }) });
    expect(await res.text()).toBe('OK');
    expect(await paidEvents(inv.id)).toHaveLength(1);
    expect((await acquirerPaymentOf(ctx.deps.db, inv.id)).status).toBe('CONFIRMED');
    const log = await acquirerNotificationsOf(ctx.deps.db, p.paymentId);
    expect(log.map((n) => n.outcome)).toEqual(['paid', 'already applied', 'ignored NEW (payment is CONFIRMED)']);
  });

  it('a notification whose amount differs from the invoice is not paid: flagged for review', async () => {
    const inv = (await create({ amount: 100 })).body.invoice;
    const p = only(inv.id);
    emulator.pay(p.paymentId, { method: 'sbp', amount: 9000 });
    await eventually(() => expect(delivered(p.paymentId, 'CONFIRMED')).toHaveLength(1));
    expect((await invoice(inv.id)).status).toBe('PENDING');
    expect((await acquirerPaymentOf(ctx.deps.db, inv.id)).review_reason).toBe('T-Bank confirmed 90.00 RUB; the invoice asked 100.00 RUB');
    expect(await paidEvents(inv.id)).toHaveLength(0);
  });

  it('a lost notification is healed by the reconciler (GetState), its event emitted once; REJECTED is recorded', async () => {
    const inv = (await create({ amount: 777.7 })).body.invoice;
    const rejected = (await create({ amount: 50 })).body.invoice;
    const p = only(inv.id);
    emulator.faults.muteNotifications = true;
    emulator.pay(p.paymentId, { method: 'sbp', payerBank: 'VTB' });
    emulator.reject(only(rejected.id).paymentId);
    // Muted: the emulator sends nothing, now or later (pay and reject notify synchronously or not at all).
    expect(emulator.notifications.filter((n) => n.paymentId === p.paymentId || n.paymentId === only(rejected.id).paymentId)).toEqual([]);
    expect((await invoice(inv.id)).status).toBe('PENDING');

    // Not yet due (younger than the delay): left alone.
    expect(await reconcileTBankPayments(ctx.deps, provider(), 60_000)).toBe(0);
    await Promise.all([reconcileTBankPayments(ctx.deps, provider(), 0), reconcileTBankPayments(ctx.deps, provider(), 0)]);
    const row = await invoice(inv.id);
    expect(row).toMatchObject({ status: 'PAID', sbp_transaction_id: p.sbpPaymentId });
    expect(await paidEvents(inv.id)).toHaveLength(1);
    expect((await acquirerPaymentOf(ctx.deps.db, rejected.id, 1)).status).toBe('REJECTED');
    // The payer may try again: a fresh payment was opened for it.
    expect((await acquirerPaymentOf(ctx.deps.db, rejected.id, 2)).status).toBe('NEW');
    expect((await invoice(rejected.id)).status).toBe('PENDING');
    // Settled payments are not asked again.
    expect(await reconcileTBankPayments(ctx.deps, provider(), 0)).toBe(0);
  });

  it('refunds a part, then the rest, through Cancel with Amount; a repeated refund request refunds once at the acquirer', async () => {
    const inv = (await create({ amount: 1000 })).body.invoice;
    const p = only(inv.id);
    emulator.pay(p.paymentId, { method: 'sbp' });
    await eventually(async () => expect((await invoice(inv.id)).status).toBe('PAID'));

    const part = await v2Request(ctx.app, m, 'post', `/api/v2/invoices/${inv.id}/refunds`, { amount: 250.5 });
    expect(part.status).toBe(201);
    expect(part.body.refund.status).toBe('SUCCEEDED');
    expect(emulator.payments.get(p.paymentId)).toMatchObject({ remaining: 74950, status: 'PARTIAL_REFUNDED' });
    // The same refund asked again (a retry after a crash): the acquirer answers the first Cancel's state.
    const again = await provider().refund({ refundId: part.body.refund.id, externalOrderId: inv.id, amount: money('250.5') });
    expect(again).toEqual({ outcome: 'succeeded' });
    expect(emulator.payments.get(p.paymentId)!.remaining).toBe(74950);

    const rest = await v2Request(ctx.app, m, 'post', `/api/v2/invoices/${inv.id}/refunds`, {});
    expect(rest.status).toBe(201);
    expect(rest.body.refund).toMatchObject({ status: 'SUCCEEDED', amount: 749.5 });
    expect(emulator.payments.get(p.paymentId)).toMatchObject({ remaining: 0, status: 'REFUNDED' });
    expect((await invoice(inv.id)).refunded_amount).toBe('1000.00');
    const refunded = await eventsOf(ctx.deps.db, { merchantId: m.merchantId, isTest: false }, 'invoice.refunded');
    expect(refunded.filter((e) => (e.body as { invoice: { id: string } }).invoice.id === inv.id)).toHaveLength(2);
  });

  it('a refund whose Cancel answer was lost is asked again by the reconciler and refunds once: SBP by GetState/GetQrState (no ExternalRequestId there), cards by ExternalRequestId', async () => {
    for (const method of ['sbp', 'card'] as const) {
      const inv = (await create({ amount: 600, paymentMethod: method })).body.invoice;
      const p = only(inv.id);
      emulator.pay(p.paymentId, { method });
      await eventually(async () => expect((await invoice(inv.id)).status).toBe('PAID'));
      emulator.faults.dropAnswer.add('Cancel');
      const res = await v2Request(ctx.app, m, 'post', `/api/v2/invoices/${inv.id}/refunds`, { amount: 100 });
      expect([res.status, res.body.refund.status]).toEqual([201, 'PENDING']);
      expect(emulator.payments.get(p.paymentId)!.remaining).toBe(50000); // the acquirer did refund
      // The refund reconciler takes refunds PENDING for REFUND_STALE_MS: this one, made older.
      await backdateRefund(ctx.deps.db, res.body.refund.id, new Date(Date.now() - REFUND_STALE_MS - 1000));
      await reconcileRefunds(ctx.deps);
      await reconcileRefunds(ctx.deps);
      expect(emulator.payments.get(p.paymentId)!.remaining).toBe(50000); // and only once
      expect((await refundRow(ctx.deps.db, res.body.refund.id)).status).toBe('SUCCEEDED');
      expect((await invoice(inv.id)).refunded_amount).toBe('100.00');
    }
  });

  it('cancelling an invoice cancels its acquirer payment, which can then not be paid', async () => {
    const inv = (await create({ amount: 90 })).body.invoice;
    const p = only(inv.id);
    const res = await v2Request(ctx.app, m, 'post', `/api/v2/invoices/${inv.id}/cancel`);
    expect(res.status).toBe(200);
    expect(emulator.payments.get(p.paymentId)!.status).toBe('CANCELED');
    expect(() => emulator.pay(p.paymentId, { method: 'sbp' })).toThrow(/CANCELED/);
    // A paid one is not cancelled at the acquirer (that would be a refund).
    const paid = (await create({ amount: 91 })).body.invoice;
    emulator.pay(only(paid.id).paymentId, { method: 'sbp' });
    await eventually(async () => expect((await invoice(paid.id)).status).toBe('PAID'));
    expect((await v2Request(ctx.app, m, 'post', `/api/v2/invoices/${paid.id}/cancel`)).status).toBe(422);
    expect(only(paid.id).status).toBe('CONFIRMED');
  });

  it('the acquirer down at create: 503 with Retry-After, no invoice, no acquirer payment; its refusal: 422 with its code', async () => {
    const before = await countInvoices(ctx.deps.db, m.merchantId);
    const payments = emulator.payments.size;
    emulator.faults.down = true;
    const res = await create({ amount: 200 });
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toMatch(/^[1-9][0-9]*$/); // whole seconds, as RFC 9110 writes a delay
    expect(res.body.error.code).toBe('SERVICE_UNAVAILABLE');
    expect(await countInvoices(ctx.deps.db, m.merchantId)).toBe(before);
    expect(emulator.payments.size).toBe(payments);

    emulator.faults.down = false;
    // SBP below the acquirer's 10-ruble minimum: GetQr refuses; the Init's payment is closed.
    const refused = await create({ amount: 5 });
    expect(refused.status).toBe(422);
    expect(refused.body.error).toMatchObject({ code: 'ACQUIRER_REFUSED', details: [{ field: 'acquirer', message: expect.stringContaining('ErrorCode 251') }] });
    expect(await countInvoices(ctx.deps.db, m.merchantId)).toBe(before);
    expect([...emulator.payments.values()].filter((p) => p.amount === 500).map((p) => p.status)).toEqual(['CANCELED']);
  });

  it('a crash between the acquirer’s answer and our commit: the retry with the same Idempotency-Key gives one invoice and one acquirer payment', async () => {
    const key = `crash-${Date.now()}`;
    emulator.faults.dropAnswer.add('GetQr'); // Init answered and recorded; the next step dies
    const first = await create({ amount: 321 }, { 'Idempotency-Key': key });
    expect(first.status).toBe(503);
    const retry = await create({ amount: 321 }, { 'Idempotency-Key': key });
    expect(retry.status).toBe(201);
    const mine = await invoiceIdsWithKey(ctx.deps.db, m.merchantId, key);
    expect(mine).toHaveLength(1);
    expect(only(mine[0]!).status).toBe('NEW');

    // Init made at the acquirer but its answer lost: the retry closes that payment before opening one.
    const key2 = `${key}-init`;
    emulator.faults.dropAnswer.add('Init');
    expect((await create({ amount: 322 }, { 'Idempotency-Key': key2 })).status).toBe(503);
    const ok = await create({ amount: 322 }, { 'Idempotency-Key': key2 });
    expect(ok.status).toBe(201);
    expect(await invoiceIdsWithKey(ctx.deps.db, m.merchantId, key2)).toHaveLength(1);
    expect(emulator.paymentsOfOrder(ok.body.invoice.id).map((p) => p.status)).toEqual(['CANCELED', 'NEW']);
  });

  it('test mode on the demo terminal (TEST_PAYMENT_PROVIDER=tbank): its own terminal and password; the sandbox cannot pay it; rubles only', async () => {
    const t = await newMerchant(ctx.deps, 'test');
    const res = await v2Request(ctx.app, t, 'post', '/api/v2/invoices', { amount: 120 });
    expect(res.status).toBe(201);
    const p = only(res.body.invoice.id);
    expect(p.terminalKey).toBe(DEMO_TERMINAL);
    const sandbox = await v2Request(ctx.app, t, 'post', `/api/v2/sandbox/invoices/${p.orderId}/pay`, {});
    expect([sandbox.status, sandbox.body.error.code]).toEqual([422, 'PAYMENT_METHOD_NOT_ENABLED']);
    const bankApp = await fetch(`${ctx.base}/pay/${p.orderId}/sbp`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'payerBank=Sandbox+Bank' });
    expect(bankApp.status).toBe(422);
    emulator.pay(p.paymentId, { method: 'sbp' });
    await eventually(async () => expect((await invoice(p.orderId)).status).toBe('PAID'));
    const order = { invoiceId: p.orderId, amount: money(1), method: 'sbp' as const, description: null, expiresAt: new Date(Date.now() + 3_600_000), merchantId: m.merchantId, isTest: false };
    await expect(provider().createOrder({ ...order, currency: 'USD' })).rejects.toMatchObject({ code: 'CURRENCY_NOT_ENABLED' });
  });

  it('configuration: T-Bank named without its terminal stops the start with the missing settings named; unset, live stays refused', () => {
    expect(() => loadInvoicingConfig({ ...process.env, LIVE_PAYMENT_PROVIDER: 'tbank', TBANK_TERMINAL_KEY: '', TBANK_PASSWORD: '' })).toThrow(/TBANK_TERMINAL_KEY must be set[\s\S]*TBANK_PASSWORD must be set/);
    expect(() => loadInvoicingConfig({ ...process.env, LIVE_PAYMENT_PROVIDER: 'paypal' })).toThrow(/LIVE_PAYMENT_PROVIDER/);
    const plain = loadInvoicingConfig({ ...process.env, LIVE_PAYMENT_PROVIDER: '' });
    expect([plain.LIVE_PAYMENT_PROVIDER, plain.TEST_PAYMENT_PROVIDER, tbankSettingsOf(plain).TBANK_API_URL]).toEqual([undefined, 'sandbox', 'https://securepay.tinkoff.ru/v2']);
  });

  it('the reconciler loops of two replicas: only the lease holder asks the acquirer; the lost payment is healed once', async () => {
    const inv = (await create({ amount: 808 })).body.invoice;
    const p = only(inv.id);
    emulator.faults.muteNotifications = true;
    emulator.pay(p.paymentId, { method: 'sbp' });
    const replicas = [tbankReconcilers(ctx.deps, tbankProvidersOf(ctx.deps.providers)), tbankReconcilers(ctx.deps, tbankProvidersOf(ctx.deps.providers))].flat();
    try {
      await Promise.all(replicas.map((loop) => loop.runNow()));
      await Promise.all(replicas.map((loop) => loop.runNow()));
    } finally {
      await Promise.all(replicas.map((loop) => loop.stop()));
    }
    expect((await invoice(inv.id)).status).toBe('PAID');
    expect(await paidEvents(inv.id)).toHaveLength(1);
    // Each terminal's lease was held by one replica, and a terminal asks about its own mode's payments: the payment was asked about once.
    expect(emulator.calls.filter((c) => c.method === 'GetState' && c.id === p.paymentId)).toHaveLength(1);
  });

  it('the reconciler lease: one holder at a time; another takes over when it runs out', async () => {
    const db = ctx.deps.db;
    const name = `lease-${Date.now()}`;
    const t = Date.now();
    expect(await holdLease(db, name, 'a', 1000, new Date(t))).toBe(true);
    expect(await holdLease(db, name, 'b', 1000, new Date(t + 10))).toBe(false);
    expect(await holdLease(db, name, 'a', 1000, new Date(t + 500))).toBe(true); // renewed to t + 1500
    expect(await holdLease(db, name, 'b', 1000, new Date(t + 1400))).toBe(false);
    expect(await holdLease(db, name, 'b', 1000, new Date(t + 1600))).toBe(true);
    expect(await holdLease(db, name, 'a', 1000, new Date(t + 1700))).toBe(false);
  });
});
