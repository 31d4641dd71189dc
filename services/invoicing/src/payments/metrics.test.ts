import { randomUUID } from 'node:crypto';
import { TBankEmulator, acquirerToken } from '@pay/tbank-emulator';
import { eventually } from '@pay/testing';
import { invoiceColumns } from '../../test/invoices/store';
import { backdateAcquirerPayment } from '../../test/payments/store';
import { newMerchant, startListeningInvoicingApp, v2Request, type TestMerchant } from '../../test/test-support';
import { tbankProvidersOf } from './tbank';
import { AcquirerRefused, AcquirerUnavailable, TBankClient } from './tbank/client';
import { NOTIFICATION_PATH } from './tbank/notifications';
import { reconcileTBankPayments } from './tbank/reconcile';

const TERMINAL = 'MetricsTerminal';
const PASSWORD = 'metrics-secret-3';

/**
 * The acquirer's metrics as an SRE's Prometheus reads them: real failures (a forged
 * notification, an acquirer that answers 503, drops the connection or does not answer) driven
 * through the emulator on loopback, and a backlog built in the real database, each read back
 * from the service's own GET /metrics.
 */
const emulator = new TBankEmulator({ terminals: { [TERMINAL]: PASSWORD }, retryDelaysMs: [100, 200, 400] });
let ctx: Awaited<ReturnType<typeof startListeningInvoicingApp>>;
let m: TestMerchant;

beforeAll(async () => {
  await emulator.start();
  // The background as RUN_WORKERS runs it (it reports the backlog); the tests run the reconciler themselves.
  const reconciler = { TBANK_RECONCILE_AFTER_MS: '0', TBANK_RECONCILE_INTERVAL_MS: '3600000' };
  const env = { LIVE_PAYMENT_PROVIDER: 'tbank', TBANK_API_URL: emulator.apiUrl, TBANK_TERMINAL_KEY: TERMINAL, TBANK_PASSWORD: PASSWORD, TBANK_TIMEOUT_MS: '1500', ...reconciler };
  ctx = await startListeningInvoicingApp({ background: true, env });
  m = await newMerchant(ctx.deps, 'live');
});
afterAll(async () => {
  await ctx?.close();
  await emulator.stop();
});
afterEach(() => {
  emulator.clearFaults();
  emulator.releaseHeld();
});

/** One sample of /metrics: the series of `name` with exactly these labels (0 when the series does not exist yet). */
async function sample(name: string, labels: Record<string, string>): Promise<number> {
  const res = await fetch(`${ctx.base}/metrics`);
  expect(res.status).toBe(200);
  for (const line of (await res.text()).split('\n')) {
    const m = /^(\w+)\{([^}]*)\} (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const found = Object.fromEntries([...m[2]!.matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.keys(found).length === Object.keys(labels).length && Object.entries(labels).every(([k, v]) => found[k] === v)) return Number(m[3]);
  }
  return 0;
}

const notifications = (outcome: string) => sample('invoicing_acquirer_notifications_total', { provider: 'tbank', outcome });
const calls = (method: string, outcome: string, mode = 'live') => sample('invoicing_acquirer_calls_total', { provider: 'tbank', mode, method, outcome });
const backlog = (name: string) => sample(name, { provider: 'tbank', mode: 'live' });

const provider = () => tbankProvidersOf(ctx.deps.providers).find((p) => p.client.terminalKey === TERMINAL)!;
const create = (amount: number) => v2Request(ctx.app, m, 'post', '/api/v2/invoices', { amount });
const post = (body: unknown) => fetch(`${ctx.base}${NOTIFICATION_PATH}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
const signedBy = (fields: Record<string, unknown>, password = PASSWORD) => ({ ...fields, Token: acquirerToken(fields, password) });

/** Runs `act` and returns by how much each counter read by `reads` moved. */
async function moved(reads: Record<string, () => Promise<number>>, act: () => Promise<void>): Promise<Record<string, number>> {
  const before = Object.fromEntries(await Promise.all(Object.entries(reads).map(async ([k, read]) => [k, await read()] as const)));
  await act();
  return Object.fromEntries(await Promise.all(Object.entries(reads).map(async ([k, read]) => [k, (await read()) - before[k]!] as const)));
}

describe('acquirer metrics on /metrics', () => {
  it('count each notification refused or not processed by its reason, and the applied ones', async () => {
    const inv = (await create(250)).body.invoice;
    const [p] = emulator.paymentsOfOrder(inv.id);
    // Paid at the acquirer; its own notification kept back, so the ones below are all there is.
    emulator.faults.muteNotifications = true;
    emulator.pay(p!.paymentId, { method: 'sbp' });
    const fields = { TerminalKey: TERMINAL, OrderId: inv.id, Success: true, Status: 'CONFIRMED', PaymentId: Number(p!.paymentId), ErrorCode: '0', Amount: 25000 };
    const reads = {
      malformed: () => notifications('malformed'),
      unknownTerminal: () => notifications('unknown_terminal'),
      badToken: () => notifications('bad_token'),
      unknownPayment: () => notifications('unknown_payment'),
      orderMismatch: () => notifications('order_mismatch'),
      error: () => notifications('error'),
      applied: () => notifications('applied'),
    };
    const delta = await moved(reads, async () => {
      expect((await post([fields])).status).toBe(400);
      const notJson = await fetch(`${ctx.base}${NOTIFICATION_PATH}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"TerminalKey":' });
      expect(notJson.status).toBe(400);
      expect((await post(signedBy({ ...fields, TerminalKey: 'NoSuchTerminal' }))).status).toBe(403);
      expect((await post(signedBy(fields, 'not-the-password'))).status).toBe(403);
      expect((await post({ ...fields, Token: 'f'.repeat(64) })).status).toBe(403);
      expect((await post(signedBy({ ...fields, PaymentId: 990000000001 }))).status).toBe(404);
      expect((await post(signedBy({ ...fields, OrderId: randomUUID() }))).status).toBe(400);
      // Genuine, but GetState (asked before a confirmation is applied) answers 503: not processed.
      emulator.faults.down = true;
      expect((await post(signedBy(fields))).status).toBe(500);
      emulator.faults.down = false;
      const taken = await post(signedBy(fields));
      expect([taken.status, await taken.text()]).toEqual([200, 'OK']);
    });
    expect(delta).toEqual({ malformed: 2, unknownTerminal: 1, badToken: 2, unknownPayment: 1, orderMismatch: 1, error: 1, applied: 1 });
  });

  it('count the calls to the acquirer by method and how they failed: refused, HTTP error, no connection, no answer', async () => {
    const reads = {
      initOk: () => calls('Init', 'ok'),
      initHttp: () => calls('Init', 'http_error'),
      initUnreachable: () => calls('Init', 'unreachable'),
      // The background's expiry asks GetState of the live terminal's due payments meanwhile (ones
      // earlier files left in this database): these GetState calls go through a test-mode client.
      getStateRefused: () => calls('GetState', 'refused', 'test'),
      getStateTimeout: () => calls('GetState', 'timeout', 'test'),
    };
    const client = new TBankClient({ apiUrl: emulator.apiUrl, terminalKey: TERMINAL, password: PASSWORD, timeoutMs: 1500, mode: 'test' });
    const delta = await moved(reads, async () => {
      // The acquirer answers 503 to everything: the invoice is refused, and Init counted.
      emulator.faults.down = true;
      expect((await create(100)).status).toBe(503);
      emulator.faults.down = false;
      // The connection dies before the acquirer sees the request.
      emulator.faults.dropRequest.add('Init');
      expect((await create(101)).status).toBe(503);
      expect((await create(102)).status).toBe(201);
      // Refused: no such payment at the acquirer.
      await expect(client.call('GetState', { PaymentId: '990000000002' })).rejects.toBeInstanceOf(AcquirerRefused);
      // Taken and never answered within TBANK_TIMEOUT_MS.
      emulator.faults.holdAnswer.add('GetState');
      await expect(client.call('GetState', { PaymentId: '990000000003' })).rejects.toMatchObject({ outcome: 'timeout' });
    });
    expect(delta).toEqual({ initOk: 1, initHttp: 1, initUnreachable: 1, getStateRefused: 1, getStateTimeout: 1 });
  });

  it('report the reconciliation backlog from the database: it grows while the acquirer cannot be asked and drains once it answers', async () => {
    const inv = (await create(300)).body.invoice;
    const [p] = emulator.paymentsOfOrder(inv.id);
    // Open at the acquirer for 30 days, unheard all that time.
    const monthAgo = new Date(Date.now() - 30 * 86_400_000);
    await backdateAcquirerPayment(ctx.deps.db, p!.paymentId, monthAgo);
    await eventually(async () => expect(await backlog('invoicing_acquirer_payment_oldest_unheard_seconds')).toBeGreaterThanOrEqual(30 * 86_400));
    expect(await backlog('invoicing_acquirer_payments_open')).toBeGreaterThanOrEqual(1);
    expect(await backlog('invoicing_acquirer_payment_oldest_open_seconds')).toBeGreaterThanOrEqual(30 * 86_400);

    // The reconciler cannot ask: nothing is heard, the backlog stays.
    emulator.faults.down = true;
    await expect(reconcileTBankPayments(ctx.deps, provider(), 0)).rejects.toBeInstanceOf(AcquirerUnavailable);
    await new Promise((r) => setTimeout(r, 1100)); // past the shared read's one-second reuse
    expect(await backlog('invoicing_acquirer_payment_oldest_unheard_seconds')).toBeGreaterThanOrEqual(30 * 86_400);

    // It answers: the payment is asked about (still NEW), so it is no longer unheard; still open.
    emulator.faults.down = false;
    await reconcileTBankPayments(ctx.deps, provider(), 0);
    await eventually(async () => expect(await backlog('invoicing_acquirer_payment_oldest_unheard_seconds')).toBeLessThan(86_400));
    expect(await backlog('invoicing_acquirer_payment_oldest_open_seconds')).toBeGreaterThanOrEqual(30 * 86_400);

    // Paid, and heard by the reconciler: a final state, out of the backlog (which may hold
    // payments an earlier, failed run of this file left open in this database).
    const open = await backlog('invoicing_acquirer_payments_open');
    emulator.faults.muteNotifications = true;
    emulator.pay(p!.paymentId, { method: 'sbp' });
    await reconcileTBankPayments(ctx.deps, provider(), 0);
    expect((await invoiceColumns(ctx.deps.db, inv.id, ['status']))!.status).toBe('PAID');
    await eventually(async () => expect(await backlog('invoicing_acquirer_payments_open')).toBe(open - 1));
  });
});
