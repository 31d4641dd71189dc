/**
 * What the invoices module publishes for analytics: aggregate reads of the owner's invoices
 * (analytics-store.ts holds the statements). The analytics module shapes their answers.
 */
export { cohortAnalyticsOf, rubAnalyticsOf } from './analytics-store';
