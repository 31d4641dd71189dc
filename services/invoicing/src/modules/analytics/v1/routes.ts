import { ownerOf } from '@pay/auth';
import type { Api } from '@pay/http';
import type { V1Deps } from '../../../deps';
import { ANALYTICS_FIRST_DAY, ANALYTICS_LAST_DAY, ANALYTICS_MAX_DAYS } from '../schemas';
import { v1AnalyticsOf, v1PeriodOf } from './analytics';
import { HOURLY_MAX_DAYS, V1Analytics, V1AnalyticsQuery } from './schemas';

/** GET /api/v1/analytics. */
export function v1AnalyticsRoutes(api: Api, deps: V1Deps): void {
  api.route({
    method: 'get',
    path: '/api/v1/analytics',
    operationId: 'v1GetAnalytics',
    summary: 'Invoice analytics (v1)',
    description:
      'Over the invoices created in [from, to) (UTC; a date-only `to` includes that day), of the calling key’s mode, of `currency` when ' +
      `given. Counts are by status now; volumes are the amounts of the paid ones less refunds, in their own currency (without \`currency\`, ` +
      '`summary.totalVolume` adds the currencies’ amounts as they are). `conversionRate` = paidCount / totalCount as a percentage (2 places); ' +
      '`averageAmount` = totalVolume / paidCount. `byPeriod` has every bucket (start as an ISO timestamp) from the one holding `from` to the ' +
      `one holding \`to\`, empty ones with zeros; \`hour\` only for periods up to ${HOURLY_MAX_DAYS} days, at most ${ANALYTICS_MAX_DAYS} days in all. ` +
      '`byCurrency` is keyed by currency code, `byBank` by the payer’s bank of paid SBP invoices, with each bank’s share of those payments ' +
      `(\`percentage\`). Dates run from ${ANALYTICS_FIRST_DAY} to the end of ${ANALYTICS_LAST_DAY}. Bad dates, dates outside that range, from ≥ to, or a ` +
      'period too long for its grouping: 400.',
    tags: ['Analytics'],
    auth: 'key',
    query: V1AnalyticsQuery,
    response: { status: 200, schema: V1Analytics },
    handler: async ({ auth, query }) => ({ body: await v1AnalyticsOf(deps.db, ownerOf(auth), v1PeriodOf(query), query) }),
  });
}
