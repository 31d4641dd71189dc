import { Type } from '@sinclair/typebox';
import { ownerOf } from '@pay/auth';
import type { Api } from '@pay/http';
import type { AnalyticsDeps } from '../../deps';
import { analyticsOf, periodOf } from './analytics';
import { Analytics, AnalyticsQuery, ANALYTICS_FIRST_DAY, ANALYTICS_LAST_DAY, ANALYTICS_MAX_DAYS } from './schemas';

export function analyticsRoutes(api: Api, deps: AnalyticsDeps): void {
  api.route({
    method: 'get',
    path: '/api/v2/analytics',
    operationId: 'getAnalytics',
    summary: 'Invoice analytics',
    description:
      'Time zone UTC: days run from 00:00 UTC, weeks start on Monday (ISO), months on the 1st. The period is startDate..endDate, both ' +
      `included (default: the 30 days ending today), at most ${ANALYTICS_MAX_DAYS} days, within ${ANALYTICS_FIRST_DAY}..${ANALYTICS_LAST_DAY} (400 outside). ` +
      'RUB invoices of the calling key’s mode only. ' +
      'Counts (`invoiceCount`, `paidCount`, `expiredCount`, `cancelledCount`) are of invoices created in the period, by their status now; ' +
      '`conversionRate` = paidCount / invoiceCount, a fraction from 0 to 1. Money (`totalRevenue`, `averageAmount`, timeline `revenue`, ' +
      '`topCustomers[].totalAmount`) is of invoices paid in the period (by paidAt), net of their refunds; `totalTransactions` counts those ' +
      'payments. `timeline` has every bucket from the one holding startDate to the one holding endDate, empty ones with zeros: ' +
      '`invoices` by createdAt, `revenue` and `transactions` by paidAt. `topCustomers`: the 10 customers with the most paid in the period, ' +
      'largest first.',
    tags: ['Analytics'],
    auth: 'signed',
    query: AnalyticsQuery,
    response: { status: 200, schema: Type.Object({ analytics: Analytics }) },
    handler: async ({ auth, query }) => ({
      body: { analytics: await analyticsOf(deps.db, ownerOf(auth), periodOf(query, deps.clock), query.groupBy) },
    }),
  });
}
