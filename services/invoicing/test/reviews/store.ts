import type { InvoicingQueries } from '../../src/db';
import { reviewOf, type ReviewRow } from '../../src/modules/reviews/store';

/**
 * The reviews module's test helper (its store's, for tests and the bench): an invoice's payment
 * reviews as tests check them, without naming the table outside its owner.
 */

/**
 * These fields of an invoice's payment reviews (exactly them): read as the store reads a review
 * (`ReviewRow`, reviewOf), so a renamed column breaks the store, not the tests.
 */
export async function reviewsOf<C extends keyof ReviewRow>(on: InvoicingQueries, invoiceId: string, columns: readonly C[]): Promise<Pick<ReviewRow, C>[]> {
  const rows = await on.$kysely.selectFrom('payment_reviews').selectAll().where('invoice_id', '=', invoiceId).execute();
  return rows.map((row) => {
    const review = reviewOf(row);
    return Object.fromEntries(columns.map((c) => [c, review[c]])) as unknown as Pick<ReviewRow, C>;
  });
}
