import type { Selectable } from 'kysely';
import type { InvoicingQueries, Tables } from '../../src/db';

/**
 * The reviews module's test helper (its store's, for tests and the bench): an invoice's payment
 * reviews as tests check them, without naming the table outside its owner.
 */

export type ReviewColumns = Selectable<Tables.PaymentReview>;

/** These columns of an invoice's payment reviews. */
export function reviewsOf<C extends keyof ReviewColumns & string>(on: InvoicingQueries, invoiceId: string, columns: readonly C[]): Promise<Pick<ReviewColumns, C>[]> {
  return on.$kysely.selectFrom('payment_reviews').select(columns).where('invoice_id', '=', invoiceId).execute() as unknown as Promise<Pick<ReviewColumns, C>[]>;
}
