import type { ChaosStack } from '@pay/testing';
import type { SqlQuery } from '../invoices/store';
import type { InvoicingQueries } from '../../src/db';
import { refundOf, type RefundRow } from '../../src/modules/refunds/store';

/**
 * The refunds module's test helper (its store's, for tests and the bench): an invoice's refunds
 * as tests check them, without naming the table outside its owner.
 */

/** An invoice's refunds, whole, by id: read as the store reads a refund (RefundRow, refundOf), so a renamed column breaks the store, not the tests. */
export async function refundRowsOf(on: InvoicingQueries, invoiceId: string): Promise<RefundRow[]> {
  const rows = await on.$kysely.selectFrom('refunds').selectAll().where('invoice_id', '=', invoiceId).orderBy('id').execute();
  return rows.map(refundOf);
}

/** How many refunds an invoice has, and the sum of the SUCCEEDED ones (as Postgres sums numeric: null when none). */
export async function refundTotalsOf(on: InvoicingQueries, invoiceId: string): Promise<{ n: number; succeeded: string | null }> {
  const [all, ok] = await Promise.all([
    on.$kysely.selectFrom('refunds').select((e) => e.fn.countAll<string>().as('n')).where('invoice_id', '=', invoiceId).executeTakeFirstOrThrow(),
    on.$kysely.selectFrom('refunds').select((e) => e.fn.sum<string>('amount').as('sum')).where('invoice_id', '=', invoiceId).where('status', '=', 'SUCCEEDED').executeTakeFirstOrThrow(),
  ]);
  return { n: Number(all.n), succeeded: ok.sum };
}

/** One refund, as the store reads it; throws when there is none. */
export async function refundRow(on: InvoicingQueries, id: string): Promise<RefundRow> {
  return refundOf(await on.$kysely.selectFrom('refunds').selectAll().where('id', '=', id).executeTakeFirstOrThrow());
}

/** Moves a refund's creation time back (e.g. past the staleness limit: reconciled without waiting). */
export async function backdateRefund(on: InvoicingQueries, id: string, at: Date): Promise<void> {
  await on.$kysely.updateTable('refunds').set({ created_at: at }).where('id', '=', id).execute();
}

/**
 * An invoice's refunds on a chaos stack's database (SQL text, one statement on a connection of
 * its own): the SUCCEEDED ones' sum as text and count, and how many there are in all.
 */
export async function refundTotalsOnStack(stack: Pick<ChaosStack, 'query'>, invoiceId: string): Promise<{ sum: string; succeeded: number; all: number }> {
  const [row] = await stack.query<{ sum: string; succeeded: number; all: number }>(
    `SELECT coalesce(sum(amount) FILTER (WHERE status = 'SUCCEEDED'), 0)::text AS sum,
            (count(*) FILTER (WHERE status = 'SUCCEEDED'))::int AS succeeded,
            count(*)::int AS all
       FROM invoicing.refunds WHERE invoice_id = $1`,
    [invoiceId],
  );
  return row!;
}

/** Refunds by status (`[{ status, n }]`); SQL text on a database of its own (an e2e stack's). */
export function refundStatusCountsIn(query: SqlQuery): Promise<{ status: string; n: number }[]> {
  return query(`SELECT status::text, count(*)::int AS n FROM invoicing.refunds GROUP BY 1`);
}
