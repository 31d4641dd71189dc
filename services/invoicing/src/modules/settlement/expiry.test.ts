import { randomUUID } from 'node:crypto';
import { ManualClock } from '@pay/runtime';
import { eventsOf } from '@pay/webhooks';
import { eventually } from '@pay/testing';
import { clockSigner, newMerchant, startInvoicingApp, type InvoicingTestApp, type TestMerchant } from '../../../test/test-support';
import { insertInvoiceRows, merchantInvoices } from '../../../test/invoices/store';
import { expireDueInvoices } from './expiry';

const clock = new ManualClock(Date.now());
const apps: InvoicingTestApp[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((a) => a.close()));
});

/** A service process's worth: its own pools and, with background, its own expiry loop (default period, 1 s). */
async function instance(background: boolean) {
  const app = await startInvoicingApp({ clock, background });
  apps.push(app);
  return app;
}

async function statuses(m: TestMerchant) {
  return merchantInvoices(apps[0]!.deps.db, m.merchantId, ['id', 'status', 'expired_at']);
}

describe('expiry', () => {
  it('two processes running: each due invoice expires once, emits once, by the next pass of the loops once expiresAt is reached; a paid one is left alone', async () => {
    const a = await instance(true);
    const b = await instance(true);
    const call = clockSigner(() => a.app, clock);
    const m = await newMerchant(a.deps);
    const ids: string[] = [];
    for (let i = 0; i < 40; i++) {
      const res = await call(m, 'post', '/api/v2/invoices', { amount: 1 + i, expiresInHours: 0.25, customerEmail: `e${i}@example.ru` });
      ids.push(res.body.invoice.id);
    }
    const later = await call(m, 'post', '/api/v2/invoices', { amount: 5, expiresInHours: 1 });
    expect((await call(m, 'post', `/api/v2/sandbox/invoices/${ids[0]}/pay`, {})).status).toBe(200);
    const expiresAt = clock.now().getTime() + 15 * 60_000;

    clock.set(expiresAt - 1);
    await Promise.all([a.background!.expiry.runNow(), b.background!.expiry.runNow()]);
    expect((await statuses(m)).filter((r) => r.status === 'EXPIRED')).toHaveLength(0);

    // The loops on their own (no runNow): once each has made a pass that started after the
    // clock reached expiresAt, every due invoice is expired. Waiting on the passes, not on
    // wall-clock seconds: loaded twentyfold, this machine made neither pass within 5 s.
    const passes = [a.background!.expiry.nextRun(), b.background!.expiry.nextRun()];
    clock.set(expiresAt);
    await Promise.all(passes);
    expect((await statuses(m)).filter((r) => r.status === 'EXPIRED')).toHaveLength(39);
    // Both loops keep running over the same rows for a while: nothing expires or emits twice.
    await Promise.all([a.background!.expiry.runNow(), b.background!.expiry.runNow(), expireDueInvoices(a.deps), expireDueInvoices(b.deps)]);

    const rows = await statuses(m);
    expect(rows.find((r) => r.id === ids[0])!.status).toBe('PAID');
    expect(rows.find((r) => r.id === later.body.invoice.id)!.status).toBe('PENDING');
    for (const r of rows.filter((x) => x.status === 'EXPIRED')) expect(r.expired_at!.getTime()).toBe(expiresAt);
    const events = await eventsOf(a.deps.db, { merchantId: m.merchantId, isTest: true }, 'invoice.expired');
    expect(events).toHaveLength(39);
    expect(new Set(events.map((e) => (e.body as { invoice: { id: string } }).invoice.id))).toEqual(new Set(ids.slice(1)));
    expect(events[0]!.body).toMatchObject({ event: 'invoice.expired', timestamp: expiresAt, invoice: { status: 'EXPIRED', paidAt: null, metadata: {} } });
    // Two apps with their background started, then 42 signed requests one after another: over
    // the default 30 s on this machine loaded twentyfold (seen here).
  }, 120_000);

  it('a one-minute invoice (expiresInHours 1/60, the shortest) expires on time: PENDING a millisecond before, EXPIRED at its minute', async () => {
    const a = await instance(true);
    const call = clockSigner(() => a.app, clock);
    const m = await newMerchant(a.deps);
    const res = await call(m, 'post', '/api/v2/invoices', { amount: 99, expiresInHours: 1 / 60 });
    expect(res.status).toBe(201);
    const expiresAt = Date.parse(res.body.invoice.expiresAt);
    expect(expiresAt - Date.parse(res.body.invoice.createdAt)).toBe(60_000);
    const shorter = await call(m, 'post', '/api/v2/invoices', { amount: 99, expiresInHours: 0.0166 });
    expect(shorter.status).toBe(400);
    expect(shorter.body.error.details).toEqual([{ field: 'expiresInHours', message: 'must be >= 1/60 (one minute)' }]);

    clock.set(expiresAt - 1);
    await a.background!.expiry.runNow();
    expect((await statuses(m)).map((r) => r.status)).toEqual(['PENDING']);
    const pass = a.background!.expiry.nextRun();
    clock.set(expiresAt);
    await pass;
    expect((await statuses(m)).map((r) => r.status)).toEqual(['EXPIRED']);
    expect((await statuses(m))[0]!.expired_at!.getTime()).toBe(expiresAt);
  });

  it('survives a restart: invoices that fell due while no process ran expire when one starts', async () => {
    const first = await instance(false);
    const call = clockSigner(() => first.app, clock);
    const m = await newMerchant(first.deps);
    for (let i = 0; i < 3; i++) await call(m, 'post', '/api/v2/invoices', { amount: 10, expiresInHours: 0.25 });
    await first.close();
    apps.splice(0);
    clock.advance(60 * 60_000);
    const restarted = await instance(true);
    // Its first pass comes a period after the background starts, which under load takes seconds of its own (seen over 5 s here).
    await eventually(async () => {
      expect((await statuses(m)).map((r) => r.status)).toEqual(['EXPIRED', 'EXPIRED', 'EXPIRED']);
    }, 30_000);
    expect(await eventsOf(restarted.deps.db, { merchantId: m.merchantId, isTest: true }, 'invoice.expired')).toHaveLength(3);
  });

  it('drains a backlog larger than one batch', async () => {
    const app = await instance(false);
    const m = await newMerchant(app.deps);
    const now = clock.now();
    // 1,200 due invoices written straight to the table (the API path is tested above).
    const due = new Date(now.getTime() - 1000);
    await insertInvoiceRows(
      app.deps.db,
      Array.from({ length: 1200 }, (_, g) => ({
          id: randomUUID(),
          merchant_id: m.merchantId,
          is_test: true,
          invoice_number: `INV-BACKLOG-${g}-${m.merchantId}`,
          amount: '1',
          payment_method: 'sbp' as const,
          provider: 'sandbox',
          external_order_id: randomUUID(),
          expires_at: due,
          created_at: due,
        })),
    );
    expect(await expireDueInvoices(app.deps)).toBeGreaterThanOrEqual(1200);
    expect((await statuses(m)).every((r) => r.status === 'EXPIRED')).toBe(true);
  });
});
