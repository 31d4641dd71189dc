import { Type } from '@sinclair/typebox';
import { Amount, StringEnum, Timestamp } from '@pay/schemas';
import { CURRENCIES } from '../../invoices/currencies';
import { CurrencyCode } from '../../invoices/v1/schemas';
import { ANALYTICS_FIRST_DAY, ANALYTICS_LAST_DAY } from '../schemas';

/** `hour` is for periods up to this long (analytics v1). */
export const HOURLY_MAX_DAYS = 7;
export type V1GroupBy = 'hour' | 'day' | 'week' | 'month';

const IsoInstant = (description: string, example: string) =>
  Type.String({
    pattern: '^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,6})?)?(Z|[+-]\\d{2}:?\\d{2})?)?$',
    description,
    examples: [example],
  });

export const V1AnalyticsQuery = Type.Object(
  {
    from: IsoInstant(`ISO 8601 date (\`2026-11-01\`, 00:00 UTC) or date-time (without a zone: UTC); included; from ${ANALYTICS_FIRST_DAY}`, '2026-11-01'),
    to: IsoInstant(`ISO 8601 date (the whole day included) or date-time (excluded); at most the end of ${ANALYTICS_LAST_DAY}`, '2026-11-30'),
    currency: Type.Optional(CurrencyCode),
    groupBy: StringEnum<V1GroupBy>(['hour', 'day', 'week', 'month'], { default: 'day', description: `\`hour\` for periods up to ${HOURLY_MAX_DAYS} days; weeks start on Monday (UTC)` }),
  },
  { additionalProperties: false },
);

const Count = Type.Integer({ minimum: 0 });
const Percentage = Type.Number({ minimum: 0, maximum: 100, description: 'Percent, 2 decimal places' });

export const V1Analytics = Type.Object(
  {
    summary: Type.Object(
      {
        totalVolume: Amount,
        totalCount: Count,
        paidCount: Count,
        expiredCount: Count,
        cancelledCount: Count,
        conversionRate: Percentage,
        averageAmount: Amount,
      },
      { title: 'V1AnalyticsSummary', additionalProperties: false },
    ),
    byPeriod: Type.Array(Type.Object({ date: Timestamp, volume: Amount, count: Count, paidCount: Count }, { title: 'V1AnalyticsPeriod', additionalProperties: false })),
    byCurrency: Type.Partial(
      Type.Object(Object.fromEntries(CURRENCIES.map((c) => [c, Type.Object({ volume: Amount, count: Count, paidCount: Count }, { title: 'V1CurrencyTotals', additionalProperties: false })])), {
        title: 'V1AnalyticsByCurrency',
        additionalProperties: false,
        description: 'Keyed by currency code: the currencies that have invoices in the period',
      }),
    ),
    byBank: Type.Record(Type.String(), Type.Object({ volume: Amount, count: Count, percentage: Percentage }, { title: 'V1BankTotals', additionalProperties: false })),
  },
  { title: 'V1Analytics', additionalProperties: false },
);
