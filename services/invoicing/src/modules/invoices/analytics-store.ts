import type { Owner } from '@pay/auth';
import { sql, type Expression, type ExpressionBuilder, type QueryCreator } from 'kysely';
import type { InvoicingQueries, Tables } from '../../db';

/**
 * The invoices module's reads for analytics (v2 and v1), aggregated by Postgres: the only
 * statements on `invoices` outside store.ts, published to the analytics module through
 * ./analytics.ts. No invoice row is loaded; each read is one statement over the
 * (merchant, mode, createdAt) or (merchant, mode, paidAt) index.
 */

type Db = InvoicingQueries['$kysely'];
type InvoicesEb = ExpressionBuilder<Tables.DB, 'invoices'>;
type Period = { start: Date; stop: Date };


/** An integer count (count(*) is a bigint, which pg hands over as text). */
const asInt = (e: Expression<unknown>) => sql<number>`${e}::int`;

/** What a paid invoice brought: its amount less its refunds. */
const keptOf = (eb: InvoicesEb) => eb('amount', '-', eb.ref('refunded_amount'));

/** The bucket (UTC) an instant of the column falls in, of the unit asked for. */
const bucketOf = (eb: InvoicesEb, unit: string, column: 'created_at' | 'paid_at') => sql<Date>`date_trunc(${unit}, ${eb.ref(column)} AT TIME ZONE 'UTC')`;

/**
 * Every bucket (UTC) from the one holding the period's start to the one holding its last
 * instant (its stop excluded), of `unit` and `step`, so empty buckets show as zeros. Shared by
 * analytics v2 and v1.
 */
const bucketsOf = (unit: string, step: string, period: { start: Date; stop: Date }) => (db: QueryCreator<Tables.DB>) =>
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
function timelineOf(db: Db, owner: Owner, p: Period, groupBy: string, step: string) {
  return db
    .with('buckets', bucketsOf(groupBy, step, p))
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

/** The customers who brought the most in the period (paid RUB invoices, net of refunds), by customer id. */
function topPayersOf(db: Db, owner: Owner, p: { start: Date; stop: Date }, limit: number) {
  return mine(db, owner)
    .where('status', '=', 'PAID')
    .where('paid_at', '>=', p.start)
    .where('paid_at', '<', p.stop)
    .where('customer_id', 'is not', null)
    .select((eb) => [eb.ref('customer_id').$castTo<string>().as('customer_id'), eb.fn.sum<string>(keptOf(eb)).as('total_amount'), asInt(eb.fn.countAll()).as('payment_count')])
    .groupBy('customer_id')
    .orderBy('total_amount', 'desc')
    .orderBy('payment_count', 'desc')
    .orderBy('customer_id')
    .limit(limit);
}


/** The owner's invoices created in the period, of one currency when asked. */
function cohort(db: Db, owner: Owner, p: Period, currency: Tables.Currency | undefined) {
  return db
    .selectFrom('invoices')
    .where('merchant_id', '=', owner.merchantId)
    .where('is_test', '=', owner.isTest)
    .where('created_at', '>=', p.start)
    .where('created_at', '<', p.stop)
    .$if(currency !== undefined, (q) => q.where('currency', '=', currency!));
}

const paidCount = (eb: InvoicesEb) => eb.fn.countAll().filterWhere('status', '=', 'PAID');
/** What the paid invoices brought: their amounts less their refunds. */
const keptSum = (eb: InvoicesEb) => eb.fn.coalesce(eb.fn.sum<string>(keptOf(eb)).filterWhere('status', '=', 'PAID'), sql<string>`0`);

/** One row per currency and the grand total (GROUPING = 1), in one scan. */
function byCurrency(db: Db, owner: Owner, p: Period, currency: Tables.Currency | undefined) {
  return cohort(db, owner, p, currency)
    .select((eb) => [
      sql<boolean>`GROUPING(${eb.ref('currency')}) = 1`.as('total'),
      'currency',
      asInt(eb.fn.countAll()).as('count'),
      asInt(paidCount(eb)).as('paid_count'),
      asInt(eb.fn.countAll().filterWhere('status', '=', 'EXPIRED')).as('expired_count'),
      asInt(eb.fn.countAll().filterWhere('status', '=', 'CANCELLED')).as('cancelled_count'),
      keptSum(eb).as('volume'),
      sql<string>`COALESCE(round(${keptSum(eb)} / NULLIF(${paidCount(eb)}, 0), 2), 0)`.as('average_amount'),
      sql<string>`COALESCE(round(100.0 * ${paidCount(eb)} / NULLIF(${eb.fn.countAll()}, 0), 2), 0)`.as('conversion_rate'),
    ])
    .groupBy((eb) => sql`ROLLUP (${eb.ref('currency')})`);
}

/** Every bucket of the period (UTC, ISO weeks), empty ones with zeros. */
function byPeriod(db: Db, owner: Owner, p: Period, currency: Tables.Currency | undefined, groupBy: string, step: string) {
  return db
    .with('buckets', bucketsOf(groupBy, step, p))
    .with('agg', () =>
      cohort(db, owner, p, currency)
        .select((eb) => [bucketOf(eb, groupBy, 'created_at').as('bucket'), asInt(eb.fn.countAll()).as('count'), asInt(paidCount(eb)).as('paid_count'), keptSum(eb).as('volume')])
        .groupBy(sql`1`),
    )
    .selectFrom('buckets as b')
    .leftJoin('agg as a', 'a.bucket', 'b.bucket')
    .select((eb) => [
      sql<string>`to_char(${eb.ref('b.bucket')}, 'YYYY-MM-DD"T"HH24:MI:SS".000Z"')`.as('date'),
      eb.fn.coalesce('a.volume', sql<string>`0`).as('volume'),
      eb.fn.coalesce('a.count', sql<number>`0`).as('count'),
      eb.fn.coalesce('a.paid_count', sql<number>`0`).as('paid_count'),
    ])
    .orderBy('b.bucket');
}

/** Paid SBP payments by the payer's bank (cards have none), with each bank's share of them. */
function byBank(db: Db, owner: Owner, p: Period, currency: Tables.Currency | undefined) {
  return cohort(db, owner, p, currency)
    .where('status', '=', 'PAID')
    .where('payer_bank', 'is not', null)
    .select((eb) => [
      'payer_bank as bank',
      asInt(eb.fn.countAll()).as('count'),
      eb.fn.sum<string>(keptOf(eb)).as('volume'),
      sql<string>`round(100.0 * count(*) / sum(count(*)) OVER (), 2)`.as('percentage'),
    ])
    .groupBy('payer_bank')
    .orderBy((eb) => eb.fn.countAll(), 'desc')
    .orderBy('payer_bank');
}

export interface AnalyticsBucketing {
  /** date_trunc's unit: hour, day, week (ISO) or month. */
  unit: string;
  /** The interval between buckets: '1 day' and so on. */
  step: string;
}

/** Analytics v2's three reads of the owner's RUB invoices in the period (side by side). */
export function rubAnalyticsOf(on: InvoicingQueries, owner: Owner, period: Period, groupBy: 'day' | 'week' | 'month', step: string, topPayers: number) {
  const db = on.$kysely;
  return Promise.all([summaryOf(db, owner, period).executeTakeFirstOrThrow(), timelineOf(db, owner, period, groupBy, step).execute(), topPayersOf(db, owner, period, topPayers).execute()]);
}

/** Analytics v1's three reads of the owner's invoices created in the period (a cohort), of one currency when asked (side by side). */
export function cohortAnalyticsOf(on: InvoicingQueries, owner: Owner, period: Period, currency: Tables.Currency | undefined, groupBy: string, step: string) {
  const db = on.$kysely;
  return Promise.all([byCurrency(db, owner, period, currency).execute(), byPeriod(db, owner, period, currency, groupBy, step).execute(), byBank(db, owner, period, currency).execute()]);
}
