import type { Owner } from '@pay/auth';
import { type Clock } from '@pay/kit';
import { toJsonNumber } from '@pay/money';
import { ApiError } from '@pay/schemas';
import { sql, type Expression, type ExpressionBuilder, type QueryCreator } from 'kysely';
import type { InvoicingTables, Tables } from '../../db';
import { ANALYTICS_DEFAULT_DAYS, ANALYTICS_FIRST_DAY, ANALYTICS_LAST_DAY, ANALYTICS_MAX_DAYS, TOP_CUSTOMERS, type GroupBy } from './schemas';

const DAY_MS = 86_400_000;
const STEP: Record<GroupBy, string> = { day: '1 day', week: '1 week', month: '1 month' };
const FIRST = new Date(`${ANALYTICS_FIRST_DAY}T00:00:00.000Z`);
const AFTER_LAST = new Date(new Date(`${ANALYTICS_LAST_DAY}T00:00:00.000Z`).getTime() + DAY_MS);

/** Refuses (400) an instant outside the days analytics answer for (the period's end may be the very end of the last day). */
export function assertAnalyticsRange(at: Date, field: string): void {
  if (at < FIRST || at > AFTER_LAST) {
    const message = `must be from ${ANALYTICS_FIRST_DAY} to ${ANALYTICS_LAST_DAY}`;
    throw new ApiError('VALIDATION_ERROR', `${field} ${message}`, [{ field, message }]);
  }
}

/** A `YYYY-MM-DD` that is a real date in the range analytics answer for, as UTC midnight. */
function parseDate(text: string, field: string): Date {
  const d = new Date(`${text}T00:00:00.000Z`);
  if (Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== text) {
    throw new ApiError('VALIDATION_ERROR', `${field} is not a calendar date: ${text}`, [{ field, message: 'must be a real date, YYYY-MM-DD' }]);
  }
  assertAnalyticsRange(d, field);
  return d;
}

/** The period as [start, stop) in UTC: whole days, endDate included. */
export function periodOf(q: { startDate?: string; endDate?: string }, clock: Clock): { start: Date; stop: Date } {
  const end = q.endDate ? parseDate(q.endDate, 'endDate') : new Date(clock.now().toISOString().slice(0, 10) + 'T00:00:00.000Z');
  const start = q.startDate ? parseDate(q.startDate, 'startDate') : new Date(end.getTime() - (ANALYTICS_DEFAULT_DAYS - 1) * DAY_MS);
  const days = (end.getTime() - start.getTime()) / DAY_MS + 1;
  if (days < 1) throw new ApiError('VALIDATION_ERROR', 'startDate must not be after endDate', [{ field: 'startDate', message: 'must be on or before endDate' }]);
  if (days > ANALYTICS_MAX_DAYS) {
    throw new ApiError('VALIDATION_ERROR', `The period is ${days} days; at most ${ANALYTICS_MAX_DAYS}`, [{ field: 'startDate', message: `must be at most ${ANALYTICS_MAX_DAYS} days before endDate` }]);
  }
  return { start, stop: new Date(end.getTime() + DAY_MS) };
}

type Db = InvoicingTables;
type InvoicesEb = ExpressionBuilder<Tables.DB, 'invoices'>;

/** An integer count (count(*) is a bigint, which pg hands over as text). */
export const asInt = (e: Expression<unknown>) => sql<number>`${e}::int`;

/** What a paid invoice brought: its amount less its refunds. */
export const keptOf = (eb: InvoicesEb) => eb('amount', '-', eb.ref('refunded_amount'));

/** The bucket (UTC) an instant of the column falls in, of the unit asked for. */
export const bucketOf = (eb: InvoicesEb, unit: string, column: 'created_at' | 'paid_at') => sql<Date>`date_trunc(${unit}, ${eb.ref(column)} AT TIME ZONE 'UTC')`;

/**
 * Every bucket (UTC) from the one holding the period's start to the one holding its last
 * instant (its stop excluded), of `unit` and `step`, so empty buckets show as zeros. Shared by
 * analytics v2 and v1.
 */
export const bucketsOf = (unit: string, step: string, period: { start: Date; stop: Date }) => (db: QueryCreator<Tables.DB>) =>
  db.selectNoFrom(
    sql<Date>`generate_series(date_trunc(${unit}, ${period.start}::timestamptz AT TIME ZONE 'UTC'),
                              date_trunc(${unit}, (${period.stop}::timestamptz AT TIME ZONE 'UTC') - interval '1 microsecond'),
                              ${step}::interval)`.as('bucket'),
  );

/** The owner's RUB invoices (v1 invoices in rubles count too; other currencies never mix in). */
function mine(db: Db, owner: Owner) {
  return db.selectFrom('invoices').where('merchant_id', '=', owner.merchantId).where('is_test', '=', owner.isTest).where('currency', '=', 'RUB');
}

function summaryOf(db: Db, owner: Owner, p: { start: Date; stop: Date }) {
  return db
    .with('created', () =>
      mine(db, owner)
        .where('created_at', '>=', p.start)
        .where('created_at', '<', p.stop)
        .select((eb) => [
          asInt(eb.fn.countAll()).as('invoice_count'),
          asInt(eb.fn.countAll().filterWhere('status', '=', 'PAID')).as('paid_count'),
          asInt(eb.fn.countAll().filterWhere('status', '=', 'EXPIRED')).as('expired_count'),
          asInt(eb.fn.countAll().filterWhere('status', '=', 'CANCELLED')).as('cancelled_count'),
        ]),
    )
    .with('paid', () =>
      mine(db, owner)
        .where('status', '=', 'PAID')
        .where('paid_at', '>=', p.start)
        .where('paid_at', '<', p.stop)
        .select((eb) => [eb.fn.coalesce(eb.fn.sum<string>(keptOf(eb)), sql<string>`0`).as('revenue'), asInt(eb.fn.countAll()).as('transactions')]),
    )
    .selectFrom(['created', 'paid'])
    .select((eb) => [
      'paid.revenue',
      'paid.transactions',
      eb
        .case()
        .when('paid.transactions', '=', 0)
        .then(sql<string>`0`)
        .else(sql<string>`round(${eb.ref('paid.revenue')} / ${eb.ref('paid.transactions')}, 2)`)
        .end()
        .as('average_amount'),
      eb
        .case()
        .when('created.invoice_count', '=', 0)
        .then(sql<string>`0`)
        .else(sql<string>`round(${eb.ref('created.paid_count')}::numeric / ${eb.ref('created.invoice_count')}, 4)`)
        .end()
        .as('conversion_rate'),
      'created.invoice_count',
      'created.paid_count',
      'created.expired_count',
      'created.cancelled_count',
    ]);
}

/** Buckets in UTC; every bucket of the period is there, empty ones with zeros. */
function timelineOf(db: Db, owner: Owner, p: { start: Date; stop: Date }, groupBy: GroupBy) {
  return db
    .with('buckets', bucketsOf(groupBy, STEP[groupBy], p))
    .with('created', () =>
      mine(db, owner)
        .where('created_at', '>=', p.start)
        .where('created_at', '<', p.stop)
        .select((eb) => [bucketOf(eb, groupBy, 'created_at').as('bucket'), asInt(eb.fn.countAll()).as('invoices')])
        .groupBy(sql`1`),
    )
    .with('paid', () =>
      mine(db, owner)
        .where('status', '=', 'PAID')
        .where('paid_at', '>=', p.start)
        .where('paid_at', '<', p.stop)
        .select((eb) => [bucketOf(eb, groupBy, 'paid_at').as('bucket'), eb.fn.sum<string>(keptOf(eb)).as('revenue'), asInt(eb.fn.countAll()).as('transactions')])
        .groupBy(sql`1`),
    )
    .selectFrom('buckets as b')
    .leftJoin('created as c', 'c.bucket', 'b.bucket')
    .leftJoin('paid as p', 'p.bucket', 'b.bucket')
    .select((eb) => [
      sql<string>`to_char(${eb.ref('b.bucket')}, 'YYYY-MM-DD')`.as('date'),
      eb.fn.coalesce('p.revenue', sql<string>`0`).as('revenue'),
      eb.fn.coalesce('p.transactions', sql<number>`0`).as('transactions'),
      eb.fn.coalesce('c.invoices', sql<number>`0`).as('invoices'),
    ])
    .orderBy('b.bucket');
}

function topCustomersOf(db: Db, owner: Owner, p: { start: Date; stop: Date }) {
  return db
    .selectFrom('invoices as i')
    .innerJoin('customers as c', 'c.id', 'i.customer_id')
    .where('i.merchant_id', '=', owner.merchantId)
    .where('i.is_test', '=', owner.isTest)
    .where('i.currency', '=', 'RUB')
    .where('i.status', '=', 'PAID')
    .where('i.paid_at', '>=', p.start)
    .where('i.paid_at', '<', p.stop)
    .select((eb) => ['c.id', 'c.full_name', eb.fn.sum<string>(eb('i.amount', '-', eb.ref('i.refunded_amount'))).as('total_amount'), asInt(eb.fn.countAll()).as('payment_count')])
    .groupBy(['c.id', 'c.full_name'])
    .orderBy('total_amount', 'desc')
    .orderBy('payment_count', 'desc')
    .orderBy('c.id')
    .limit(TOP_CUSTOMERS);
}

/**
 * Analytics v2, aggregated by Postgres (no invoice row is loaded here): three statements over
 * the (merchant, mode, createdAt) and (merchant, mode, paidAt) indexes, run side by side.
 */
export async function analyticsOf(db: Db, owner: Owner, period: { start: Date; stop: Date }, groupBy: GroupBy) {
  const [s, timeline, top] = await Promise.all([
    summaryOf(db, owner, period).executeTakeFirstOrThrow(),
    timelineOf(db, owner, period, groupBy).execute(),
    topCustomersOf(db, owner, period).execute(),
  ]);
  return {
    totalRevenue: toJsonNumber(s.revenue),
    totalTransactions: s.transactions,
    averageAmount: toJsonNumber(s.average_amount),
    conversionRate: toJsonNumber(s.conversion_rate),
    invoiceCount: s.invoice_count,
    paidCount: s.paid_count,
    expiredCount: s.expired_count,
    cancelledCount: s.cancelled_count,
    timeline: timeline.map((r) => ({ date: r.date, revenue: toJsonNumber(r.revenue), transactions: r.transactions, invoices: r.invoices })),
    topCustomers: top.map((r) => ({ id: r.id, fullName: r.full_name, totalAmount: toJsonNumber(r.total_amount), paymentCount: r.payment_count })),
  };
}
