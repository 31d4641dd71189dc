import { Type } from '@sinclair/typebox';
import { Amount, IsoDay, StringEnum, Uuid } from '@pay/schemas';


export type GroupBy = 'day' | 'week' | 'month';

export const ANALYTICS_MAX_DAYS = 731;
/**
 * The dates analytics answer for, v2 and v1: from the Unix epoch (nothing is paid before it)
 * through 9999-12-31 (ISO 8601 text has four-digit years). Postgres reads year 0 as 1 BC, which
 * no ISO timestamp can show (v1 answered 500, v2 labelled the buckets 0001).
 */
export const ANALYTICS_FIRST_DAY = '1970-01-01';
export const ANALYTICS_LAST_DAY = '9999-12-31';
export const ANALYTICS_DEFAULT_DAYS = 30;
export const TOP_CUSTOMERS = 10;

export const AnalyticsQuery = Type.Object(
  {
    startDate: Type.Optional(IsoDay(`YYYY-MM-DD (UTC), inclusive, from ${ANALYTICS_FIRST_DAY}; default ${ANALYTICS_DEFAULT_DAYS - 1} days before endDate`)),
    endDate: Type.Optional(IsoDay(`YYYY-MM-DD (UTC), inclusive, at most ${ANALYTICS_LAST_DAY}; default today`)),
    groupBy: StringEnum<GroupBy>(['day', 'week', 'month'], { default: 'day', description: 'Timeline bucket; weeks start on Monday' }),
  },
  { additionalProperties: false },
);

export const Analytics = Type.Object(
  {
    totalRevenue: Type.Number({ description: 'Rubles of invoices paid in the period, less their refunds' }),
    totalTransactions: Type.Integer({ minimum: 0, description: 'Invoices paid in the period (by paidAt)' }),
    averageAmount: Type.Number({ description: 'totalRevenue / totalTransactions, 2 places; 0 when none' }),
    conversionRate: Type.Number({ minimum: 0, maximum: 1, description: 'paidCount / invoiceCount, a fraction (4 places); 0 when no invoice' }),
    invoiceCount: Type.Integer({ minimum: 0, description: 'Invoices created in the period (by createdAt)' }),
    paidCount: Type.Integer({ minimum: 0, description: 'Of those, PAID now' }),
    expiredCount: Type.Integer({ minimum: 0, description: 'Of those, EXPIRED now' }),
    cancelledCount: Type.Integer({ minimum: 0, description: 'Of those, CANCELLED now' }),
    timeline: Type.Array(
      Type.Object(
        {
          date: Type.String({ description: 'YYYY-MM-DD: the day, the Monday of the week, or the 1st of the month (UTC)' }),
          revenue: Amount,
          transactions: Type.Integer({ minimum: 0 }),
          invoices: Type.Integer({ minimum: 0 }),
        },
        { title: 'AnalyticsBucket', additionalProperties: false },
      ),
    ),
    topCustomers: Type.Array(
      Type.Object(
        {
          id: Uuid,
          fullName: Type.Union([Type.String(), Type.Null()]),
          totalAmount: Amount,
          paymentCount: Type.Integer({ minimum: 1 }),
        },
        { title: 'TopCustomer', additionalProperties: false },
      ),
      { maxItems: TOP_CUSTOMERS },
    ),
  },
  { title: 'Analytics', additionalProperties: false },
);
