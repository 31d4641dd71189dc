import request from 'supertest';
import { ManualClock } from '@pay/runtime';
import { setInvoiceStatus } from '../../../../test/invoices/store';
import { invoicingAppForSuite, newMerchant, v1Request, type TestMerchant } from '../../../../test/test-support';

/*
 * A hand-computed fixture (test mode, one merchant with RUB, USD and EUR enabled):
 *
 *  #   created (UTC)   amount     outcome
 *  B1  Oct 31 10:00    999 RUB    paid, Sber          (before the period)
 *  A1  Nov 2 09:00     100 RUB    paid, Sber
 *  A2  Nov 2 09:30     200 RUB    paid, Sber
 *  A3  Nov 2 10:15     50 RUB     paid, T-Bank
 *  A4  Nov 2 10:45     10.50 USD  paid, T-Bank
 *  A5  Nov 2 11:00     30 EUR     cancelled
 *  A6  Nov 2 11:30     70 RUB     expired
 *  A7  Nov 3 12:00     1000 RUB   pending
 *  A8  Nov 3 12:00     4.50 USD   paid, Alfa
 *  plus another merchant's paid invoice and this merchant's live-mode one, which never count.
 *
 * Nov 2..Nov 3: 8 created, 5 paid (62.5 %), 1 expired, 1 cancelled; volume 365, average 73.
 *  by day: Nov 2 6 created, 4 paid, 360.50; Nov 3 2 created, 1 paid, 4.50.
 *  by currency: RUB 5/3/350, USD 2/2/15, EUR 1/0/0.
 *  by bank: Sber 2 (300, 40 %), T-Bank 2 (60.50, 40 %), Alfa 1 (4.50, 20 %).
 */
const at = (iso: string) => new Date(`2026-${iso}Z`).getTime();
const clock = new ManualClock(at('10-31T10:00:00.000'));
const ctx = invoicingAppForSuite({ clock, liveSandbox: true });
let m: TestMerchant;
const get = (query: string, who: Pick<TestMerchant, 'apiKey'> = m) => v1Request(ctx.app, who, 'get', `/api/v1/analytics?${query}`);

async function invoice(when: string, amount: number, currency: string, outcome: string | null, owner: Pick<TestMerchant, 'apiKey'> = m) {
  clock.set(at(when));
  const res = await v1Request(ctx.app, owner, 'post', '/api/v1/invoices', { amount, currency });
  expect(res.status).toBe(201);
  const id = res.body.id as string;
  if (outcome === 'cancelled') expect((await v1Request(ctx.app, owner, 'post', `/api/v1/invoices/${id}/cancel`)).status).toBe(200);
  else if (outcome === 'expired') await setInvoiceStatus(ctx.deps.db, id, 'EXPIRED');
  else if (outcome) expect((await v1Request(ctx.app, owner, 'post', `/api/v1/sandbox/invoices/${id}/pay`, { payerBank: outcome })).status).toBe(200);
}

beforeAll(async () => {
  m = await newMerchant(ctx.deps);
  const other = await newMerchant(ctx.deps);
  expect((await v1Request(ctx.app, { apiKey: m.liveKey }, 'put', '/api/v1/settings/currencies', { enabledCurrencies: ['RUB', 'USD', 'EUR'] })).status).toBe(200);
  await invoice('10-31T10:00:00.000', 999, 'RUB', 'Sber');
  await invoice('11-02T09:00:00.000', 100, 'RUB', 'Sber');
  await invoice('11-02T09:30:00.000', 200, 'RUB', 'Sber');
  await invoice('11-02T10:15:00.000', 50, 'RUB', 'T-Bank');
  await invoice('11-02T10:45:00.000', 10.5, 'USD', 'T-Bank');
  await invoice('11-02T11:00:00.000', 30, 'EUR', 'cancelled');
  await invoice('11-02T11:30:00.000', 70, 'RUB', 'expired');
  await invoice('11-03T12:00:00.000', 1000, 'RUB', null);
  await invoice('11-03T12:00:00.000', 4.5, 'USD', 'Alfa');
  await invoice('11-02T09:00:00.000', 500, 'RUB', 'Sber', other);
  await invoice('11-02T09:00:00.000', 700, 'RUB', null, { apiKey: m.liveKey });
}, 60_000);

describe('GET /api/v1/analytics', () => {
  it('summary, byPeriod, byCurrency and byBank, by day', async () => {
    const res = await get('from=2026-11-02&to=2026-11-03');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      summary: { totalVolume: 365, totalCount: 8, paidCount: 5, expiredCount: 1, cancelledCount: 1, conversionRate: 62.5, averageAmount: 73 },
      byPeriod: [
        { date: '2026-11-02T00:00:00.000Z', volume: 360.5, count: 6, paidCount: 4 },
        { date: '2026-11-03T00:00:00.000Z', volume: 4.5, count: 2, paidCount: 1 },
      ],
      byCurrency: { RUB: { volume: 350, count: 5, paidCount: 3 }, USD: { volume: 15, count: 2, paidCount: 2 }, EUR: { volume: 0, count: 1, paidCount: 0 } },
      byBank: { Sber: { volume: 300, count: 2, percentage: 40 }, 'T-Bank': { volume: 60.5, count: 2, percentage: 40 }, Alfa: { volume: 4.5, count: 1, percentage: 20 } },
    });
  });

  it('one currency', async () => {
    const res = await get('from=2026-11-02T00:00:00Z&to=2026-11-04T00:00:00Z&currency=USD');
    expect(res.body.summary).toEqual({ totalVolume: 15, totalCount: 2, paidCount: 2, expiredCount: 0, cancelledCount: 0, conversionRate: 100, averageAmount: 7.5 });
    expect(res.body.byCurrency).toEqual({ USD: { volume: 15, count: 2, paidCount: 2 } });
    expect(res.body.byBank).toEqual({ 'T-Bank': { volume: 10.5, count: 1, percentage: 50 }, Alfa: { volume: 4.5, count: 1, percentage: 50 } });
  });

  it('by hour (to excluded, zones honoured), week (Monday) and month; an empty period is zeros', async () => {
    const hours = await get('from=2026-11-02T12:00:00%2B03:00&to=2026-11-02T12:00:00Z&groupBy=hour');
    expect(hours.status).toBe(200);
    expect(hours.body.byPeriod).toEqual([
      { date: '2026-11-02T09:00:00.000Z', volume: 300, count: 2, paidCount: 2 },
      { date: '2026-11-02T10:00:00.000Z', volume: 60.5, count: 2, paidCount: 2 },
      { date: '2026-11-02T11:00:00.000Z', volume: 0, count: 2, paidCount: 0 },
    ]);
    expect((await get('from=2026-11-01&to=2026-11-08&groupBy=week')).body.byPeriod).toEqual([
      { date: '2026-10-26T00:00:00.000Z', volume: 0, count: 0, paidCount: 0 },
      { date: '2026-11-02T00:00:00.000Z', volume: 365, count: 8, paidCount: 5 },
    ]);
    expect((await get('from=2026-10-01&to=2026-11-30&groupBy=month')).body.byPeriod.map((p: { date: string; count: number }) => [p.date, p.count])).toEqual([
      ['2026-10-01T00:00:00.000Z', 1],
      ['2026-11-01T00:00:00.000Z', 8],
    ]);
    const empty = await get('from=2025-01-01&to=2025-01-01');
    expect(empty.body).toEqual({
      summary: { totalVolume: 0, totalCount: 0, paidCount: 0, expiredCount: 0, cancelledCount: 0, conversionRate: 0, averageAmount: 0 },
      byPeriod: [{ date: '2025-01-01T00:00:00.000Z', volume: 0, count: 0, paidCount: 0 }],
      byCurrency: {},
      byBank: {},
    });
  });

  it('400 for missing or bad dates, from after to, hour over 7 days, an unknown grouping, currency or parameter; 401 without a key', async () => {
    for (const query of [
      'to=2026-11-03',
      'from=2026-11-02',
      'from=yesterday&to=2026-11-03',
      'from=2026-02-30&to=2026-03-03',
      'from=2026-11-04&to=2026-11-03',
      'from=2026-11-03T10:00:00Z&to=2026-11-03T10:00:00Z',
      'from=2026-11-01&to=2026-11-08&groupBy=hour',
      'from=2026-11-01&to=2026-11-03&groupBy=year',
      'from=2026-11-01&to=2026-11-03&currency=GBP',
      'from=2026-11-01&to=2026-11-03&limit=5',
      'from=2020-01-01&to=2026-11-03',
      // Postgres reads year 0 as 1 BC, whose buckets no ISO timestamp can show (a 500).
      'from=0000-01-01&to=0001-01-01',
      'from=1969-12-31T23:00:00Z&to=1970-01-02',
      'from=1970-01-01T00:00:00+01:00&to=1970-01-02',
      'from=9999-12-31&to=9999-12-31T23:00:00-05:00',
    ]) {
      const res = await get(query);
      expect([query, res.status]).toEqual([query, 400]);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.details.length).toBeGreaterThan(0);
    }
    expect((await get('from=2026-11-01T00:00:00Z&to=2026-11-08T00:00:00Z&groupBy=hour')).status).toBe(200);
    expect((await get('from=0000-01-01&to=0001-01-01')).body.error.details).toEqual([{ field: 'from', message: 'must be from 1970-01-01 to 9999-12-31' }]);
    const first = await get('from=1970-01-01&to=1970-01-02&groupBy=day');
    expect([first.status, first.body.byPeriod?.map((p: { date: string }) => p.date)]).toEqual([200, ['1970-01-01T00:00:00.000Z', '1970-01-02T00:00:00.000Z']]);
    const last = await get('from=9999-12-30&to=9999-12-31&groupBy=day');
    expect([last.status, last.body.byPeriod?.map((p: { date: string }) => p.date)]).toEqual([200, ['9999-12-30T00:00:00.000Z', '9999-12-31T00:00:00.000Z']]);
    expect((await request(ctx.app).get('/api/v1/analytics?from=2026-11-01&to=2026-11-03')).status).toBe(401);
  });
});
