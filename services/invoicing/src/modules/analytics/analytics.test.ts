import { randomUUID } from 'node:crypto';
import { ManualClock } from '@pay/runtime';
import { clockSigner, invoicingAppForSuite, newMerchant, type TestMerchant } from '../../../test/test-support';
import { countInvoices, insertInvoiceRows } from '../../../test/invoices/store';
import { expireDueInvoices } from '../settlement/expiry';
import { payInvoice } from '../invoices/payment';

/*
 * A hand-computed fixture: 56 invoices of one merchant (test mode) across four weeks, four
 * customers and every state, plus rows that must not count (the same merchant's live mode,
 * a USD invoice, another merchant). Every expected number below was worked out by hand from
 * this table, not by code:
 *
 *  #      created (UTC)      amount   customer  outcome
 *  54     Oct 25 10:00       70       -         expired
 *  53     Oct 30 10:00       400      Alice     paid Nov 2 11:00
 *  56     Oct 31 10:00       10       Boris     paid Nov 3 09:00
 *  1-5    Nov 2 10:00        100 ea   Alice     paid Nov 2 11:00
 *  6-8    Nov 2 10:00        200 ea   Boris     paid Nov 3 09:00
 *  9-10   Nov 2 10:00        50 ea    -         expired
 *  11     Nov 2 10:00        1000     Chen      cancelled Nov 2 11:00
 *  12-15  Nov 2 10:00        25 ea    Dasha     pending
 *  16-25  Nov 11 12:00       10.10 ea Chen      paid Nov 11 12:30
 *  26-30  Nov 11 12:00       70 ea    -         expired
 *  31-32  Nov 11 12:00       300 ea   Alice     paid Nov 14 08:00
 *  33     Nov 11 12:00       0.99     Boris     paid Nov 15 23:59:59.900
 *  34-43  Nov 22 10:00       5 ea     Dasha     cancelled Nov 22 11:00
 *  44-46  Nov 22 10:00       1000 ea  Boris     paid Nov 22 23:00; #44 refunded 250 at 23:30
 *  47     Nov 22 10:00       123.45   Alice     paid Nov 23 00:00:00.000 (after Nov 22)
 *  48-52  Nov 22 10:00       33.33 ea -         paid Nov 22 23:00
 *  55     Nov 23 09:00       60       -         pending
 *
 * Period Nov 2..Nov 22 (weeks of Nov 2, 9, 16):
 *  created in period: 1-52 = 52; PAID now 1-8, 16-25, 31-33, 44-52 = 30; EXPIRED 9-10, 26-30 = 7;
 *  CANCELLED 11, 34-43 = 11; PENDING 12-15 = 4. conversionRate 30/52 = 0.5769.
 *  paid in period: week Nov 2: 1-5 (500) + 53 (400) + 6-8 (600) + 56 (10) = 1510 in 10;
 *  week Nov 9: 16-25 (101) + 31-32 (600) + 33 (0.99) = 701.99 in 13;
 *  week Nov 16: 44-46 (3000 − 250) + 48-52 (166.65) = 2916.65 in 8.
 *  totalRevenue 5128.64 in 31; average 5128.64 / 31 = 165.44.
 *  top: Boris 600 + 10 + 0.99 + 2750 = 3360.99 (8); Alice 500 + 400 + 600 = 1500 (8); Chen 101 (10).
 */
const at = (iso: string) => new Date(`2026-${iso}Z`).getTime();
const clock = new ManualClock(at('10-25T09:00:00.000'));
const ctx = invoicingAppForSuite({ clock, liveSandbox: true });
const call = clockSigner(() => ctx.app, clock);
let m: TestMerchant;

const PEOPLE = {
  Alice: { customerEmail: 'alice@example.ru', customerName: 'Alice' },
  Boris: { customerEmail: 'boris@example.ru', customerName: 'Boris' },
  Chen: { customerPhone: '+79990000003', customerName: 'Chen' },
  Dasha: { customerEmail: 'dasha@example.ru', customerName: 'Dasha' },
  nobody: {},
};

async function create(n: number, amount: number, who: keyof typeof PEOPLE, hours = 720, owner = m): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const res = await call(owner, 'post', '/api/v2/invoices', { amount, expiresInHours: hours, ...PEOPLE[who] });
    expect(res.status).toBe(201);
    ids.push(res.body.invoice.id);
  }
  return ids;
}
async function pay(ids: string[]) {
  for (const id of ids) expect((await call(m, 'post', `/api/v2/sandbox/invoices/${id}/pay`, {})).status).toBe(200);
}
async function cancel(ids: string[]) {
  for (const id of ids) expect((await call(m, 'post', `/api/v2/invoices/${id}/cancel`)).status).toBe(200);
}

beforeAll(async () => {
  m = await newMerchant(ctx.deps);
  const other = await newMerchant(ctx.deps);
  const live = { ...m, apiKey: m.liveKey, isTest: false };

  await create(1, 70, 'nobody', 0.25); // 54
  clock.set(at('10-30T10:00:00.000'));
  const i53 = await create(1, 400, 'Alice');
  clock.set(at('10-31T10:00:00.000'));
  const i56 = await create(1, 10, 'Boris');

  clock.set(at('11-02T10:00:00.000'));
  const i1to5 = await create(5, 100, 'Alice');
  const i6to8 = await create(3, 200, 'Boris');
  await create(2, 50, 'nobody', 0.25); // 9-10
  const i11 = await create(1, 1000, 'Chen');
  await create(4, 25, 'Dasha'); // 12-15
  await create(2, 500, 'Alice', 720, other); // another merchant: never counted
  clock.set(at('11-02T11:00:00.000'));
  await pay([...i1to5, ...i53]);
  await cancel(i11);

  clock.set(at('11-03T09:00:00.000'));
  await pay([...i6to8, ...i56]);

  clock.set(at('11-11T12:00:00.000'));
  const i16to25 = await create(10, 10.1, 'Chen');
  await create(5, 70, 'nobody', 0.25); // 26-30
  const i31to32 = await create(2, 300, 'Alice');
  const i33 = await create(1, 0.99, 'Boris');
  // The same merchant's live mode: never counted in test mode.
  const [liveId] = await create(1, 777, 'Alice', 720, live);
  await payInvoice(ctx.deps, { id: liveId! }, { method: 'sbp', payerBank: null, sbpTransactionId: null });
  // A USD invoice (v1 will make these): never counted in ruble analytics.
  await insertInvoiceRows(ctx.deps.db, [
    {
      id: randomUUID(),
      merchant_id: m.merchantId,
      is_test: true,
      api: 'v1',
      invoice_number: `INV-USD-${randomUUID()}`,
      amount: '999',
      currency: 'USD',
      payment_method: 'sbp',
      provider: 'sandbox',
      external_order_id: randomUUID(),
      status: 'PAID',
      expires_at: clock.now(),
      created_at: clock.now(),
      paid_at: clock.now(),
    },
  ]);
  clock.set(at('11-11T12:30:00.000'));
  await pay(i16to25);

  clock.set(at('11-14T08:00:00.000'));
  await pay(i31to32);
  clock.set(at('11-15T23:59:59.900'));
  await pay(i33);

  clock.set(at('11-22T10:00:00.000'));
  const i34to43 = await create(10, 5, 'Dasha');
  const i44to46 = await create(3, 1000, 'Boris');
  const i47 = await create(1, 123.45, 'Alice');
  const i48to52 = await create(5, 33.33, 'nobody');
  clock.set(at('11-22T11:00:00.000'));
  await cancel(i34to43);
  clock.set(at('11-22T23:00:00.000'));
  await pay([...i44to46, ...i48to52]);
  clock.set(at('11-22T23:30:00.000'));
  expect((await call(m, 'post', `/api/v2/invoices/${i44to46[0]}/refunds`, { amount: 250 })).status).toBe(201);

  clock.set(at('11-23T00:00:00.000'));
  await pay(i47);
  clock.set(at('11-23T09:00:00.000'));
  await create(1, 60, 'nobody'); // 55
  clock.set(at('11-23T10:00:00.000'));
  await expireDueInvoices(ctx.deps);

  expect(await countInvoices(ctx.deps.db, m.merchantId, { isTest: true, currency: 'RUB' })).toBe(56);
}, 120_000);

const analytics = async (qs: string) => {
  const res = await call(m, 'get', `/api/v2/analytics${qs}`);
  expect(res.status).toBe(200);
  return res.body.analytics;
};
const day = (date: string, revenue = 0, transactions = 0, invoices = 0) => ({ date, revenue, transactions, invoices });

describe('GET /api/v2/analytics against the hand-computed fixture', () => {
  it('weeks of Nov 2..22: every field', async () => {
    const res = await call(m, 'get', '/api/v2/analytics?startDate=2026-11-02&endDate=2026-11-22&groupBy=week');
    expect(res.body).toEqual({
      success: true,
      analytics: {
        totalRevenue: 5128.64,
        totalTransactions: 31,
        averageAmount: 165.44,
        conversionRate: 0.5769,
        invoiceCount: 52,
        paidCount: 30,
        expiredCount: 7,
        cancelledCount: 11,
        timeline: [day('2026-11-02', 1510, 10, 15), day('2026-11-09', 701.99, 13, 18), day('2026-11-16', 2916.65, 8, 19)],
        topCustomers: [
          { id: expect.any(String), fullName: 'Boris', totalAmount: 3360.99, paymentCount: 8 },
          { id: expect.any(String), fullName: 'Alice', totalAmount: 1500, paymentCount: 8 },
          { id: expect.any(String), fullName: 'Chen', totalAmount: 101, paymentCount: 10 },
        ],
      },
    });
  });

  it('days (the default grouping): every day present, empty ones with zeros', async () => {
    const a = await analytics('?startDate=2026-11-02&endDate=2026-11-22');
    const expected = Array.from({ length: 21 }, (_, i) => day(`2026-11-${String(2 + i).padStart(2, '0')}`));
    expected[0] = day('2026-11-02', 900, 6, 15);
    expected[1] = day('2026-11-03', 610, 4, 0);
    expected[9] = day('2026-11-11', 101, 10, 18);
    expected[12] = day('2026-11-14', 600, 2, 0);
    expected[13] = day('2026-11-15', 0.99, 1, 0);
    expected[20] = day('2026-11-22', 2916.65, 8, 19);
    expect(a.timeline).toEqual(expected);
    expect(a.totalRevenue).toBe(5128.64);
  });

  it('months of Oct 20..Nov 30: buckets start on the 1st; the late payment and invoices outside Nov 2..22 now count', async () => {
    const a = await analytics('?startDate=2026-10-20&endDate=2026-11-30&groupBy=month');
    expect(a).toMatchObject({
      totalRevenue: 5252.09,
      totalTransactions: 32,
      averageAmount: 164.13, // 5252.09 / 32 = 164.1278…
      conversionRate: 0.5714, // 32 / 56
      invoiceCount: 56,
      paidCount: 32,
      expiredCount: 8,
      cancelledCount: 11,
      timeline: [day('2026-10-01', 0, 0, 3), day('2026-11-01', 5252.09, 32, 53)],
    });
    expect(a.topCustomers.map((c: { fullName: string; totalAmount: number }) => [c.fullName, c.totalAmount])).toEqual([
      ['Boris', 3360.99],
      ['Alice', 1623.45],
      ['Chen', 101],
    ]);
  });

  it('weeks start on Monday; a week with nothing is there with zeros', async () => {
    const a = await analytics('?startDate=2026-11-04&endDate=2026-12-06&groupBy=week');
    expect(a.timeline).toEqual([
      day('2026-11-02', 0, 0, 0), // Nov 4..8 only: the Nov 2 and 3 rows fall before the period
      day('2026-11-09', 701.99, 13, 18),
      day('2026-11-16', 2916.65, 8, 19),
      day('2026-11-23', 123.45, 1, 1),
      day('2026-11-30', 0, 0, 0),
    ]);
  });

  it('a period without invoices: zeros, never a division by zero', async () => {
    expect(await analytics('?startDate=2026-01-01&endDate=2026-01-03')).toEqual({
      totalRevenue: 0,
      totalTransactions: 0,
      averageAmount: 0,
      conversionRate: 0,
      invoiceCount: 0,
      paidCount: 0,
      expiredCount: 0,
      cancelledCount: 0,
      timeline: [day('2026-01-01'), day('2026-01-02'), day('2026-01-03')],
      topCustomers: [],
    });
  });

  it('answers for the first and the last days it takes (1970-01-01, 9999-12-31)', async () => {
    const first = await call(m, 'get', '/api/v2/analytics?startDate=1970-01-01&endDate=1970-01-07&groupBy=week');
    expect(first.status).toBe(200);
    expect(first.body.analytics.timeline.map((b: { date: string }) => b.date)).toEqual(['1969-12-29', '1970-01-05']);
    const last = await call(m, 'get', '/api/v2/analytics?startDate=9999-11-01&endDate=9999-12-31&groupBy=month');
    expect(last.status).toBe(200);
    expect(last.body.analytics.timeline.map((b: { date: string }) => b.date)).toEqual(['9999-11-01', '9999-12-01']);
  });

  it('defaults to the 30 days ending today (UTC), by day', async () => {
    const a = await analytics('');
    expect(a.timeline).toHaveLength(30);
    expect(a.timeline[0].date).toBe('2026-10-25');
    expect(a.timeline[29]).toEqual(day('2026-11-23', 123.45, 1, 1));
  });

  it.each([
    ['?startDate=2026-11-22&endDate=2026-11-02', 'startDate', 'must be on or before endDate'],
    ['?startDate=2024-01-01&endDate=2026-11-02', 'startDate', 'must be at most 731 days before endDate'],
    ['?startDate=2026-02-30', 'startDate', 'must be a real date, YYYY-MM-DD'],
    ['?startDate=02.11.2026', 'startDate', 'must match pattern "^\\d{4}-\\d{2}-\\d{2}$"'],
    ['?groupBy=hour', 'groupBy', 'must be one of: day, week, month'],
    ['?from=2026-11-01', 'from', 'is not a known field'],
    // Postgres reads year 0 as 1 BC: the buckets were labelled 0001-….
    ['?startDate=0000-12-01&endDate=1970-01-31&groupBy=month', 'startDate', 'must be from 1970-01-01 to 9999-12-31'],
    ['?startDate=1969-12-31&endDate=1970-01-31', 'startDate', 'must be from 1970-01-01 to 9999-12-31'],
    ['?startDate=0000-01-01&endDate=0000-03-01', 'endDate', 'must be from 1970-01-01 to 9999-12-31'],
  ])('refuses %s', async (qs, field, message) => {
    const res = await call(m, 'get', `/api/v2/analytics${qs}`);
    expect(res.status).toBe(400);
    expect(res.body.error.details).toContainEqual({ field, message });
  });
});
