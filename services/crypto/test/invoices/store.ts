import type { CryptoQueries } from '../../src/db';

/** Tests' reads of `crypto.invoices` (the invoices module's table): only here. */

/** The invoices' deposit addresses and indexes, by index. */
export async function depositIndexesOf(on: CryptoQueries, ids: string[]): Promise<{ address: string; depositIndex: number | null }[]> {
  if (ids.length === 0) return [];
  return on.$kysely.selectFrom('invoices').select(['address', 'deposit_index as depositIndex']).where('id', 'in', ids).orderBy('deposit_index', 'asc').execute();
}

/** Moves an invoice's expiry (a page test watches one expire without waiting its minimum minute). */
export async function setInvoiceExpiry(on: CryptoQueries, id: string, expiresAt: Date): Promise<void> {
  await on.$kysely.updateTable('invoices').set({ expires_at: expiresAt }).where('id', '=', id).execute();
}
