import { randomUUID } from 'node:crypto';
import type { CryptoQueries } from '../../src/db';
import type { Currency, Network, TransactionStatus } from '../../src/generated/kysely/tables';
import { transactionOf, type TransactionRecord } from '../../src/modules/transactions/store';

/** Tests' reads and writes of `crypto.transactions` (the transactions module's table): only here. */

/** A transfer's status (it must exist). */
export async function transactionStatus(on: CryptoQueries, id: string): Promise<TransactionStatus> {
  return (await on.$kysely.selectFrom('transactions').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;
}

/** The transfers matching every filter given, oldest first. */
export async function transactionsWhere(
  on: CryptoQueries,
  where: { network?: Network; txHash?: string; toAddress?: string; status?: TransactionStatus; invoiceId?: string; isTest?: boolean },
): Promise<TransactionRecord[]> {
  const rows = await filtered(on, where).selectAll().orderBy('created_at').execute();
  return rows.map(transactionOf);
}

/** The first transfer matching the filters (one must). */
export async function transactionWhere(on: CryptoQueries, where: Parameters<typeof transactionsWhere>[1]): Promise<TransactionRecord> {
  const [t] = await transactionsWhere(on, where);
  if (!t) throw new Error(`no transfer matches ${JSON.stringify(where)}`);
  return t;
}

/** How many transfers match the filters. */
export async function transactionCount(on: CryptoQueries, where: Parameters<typeof transactionsWhere>[1]): Promise<number> {
  return (await transactionsWhere(on, where)).length;
}

/** Deletes the transfers matching the filters. */
export async function deleteTransactions(on: CryptoQueries, where: Parameters<typeof transactionsWhere>[1]): Promise<void> {
  const ids = (await transactionsWhere(on, where)).map((t) => t.id);
  if (ids.length > 0) await on.$kysely.deleteFrom('transactions').where('id', 'in', ids).execute();
}

function filtered(on: CryptoQueries, where: Parameters<typeof transactionsWhere>[1]) {
  return on.$kysely
    .selectFrom('transactions')
    .$if(where.network !== undefined, (q) => q.where('network', '=', where.network!))
    .$if(where.txHash !== undefined, (q) => q.where('tx_hash', '=', where.txHash!))
    .$if(where.toAddress !== undefined, (q) => q.where('to_address', '=', where.toAddress!))
    .$if(where.status !== undefined, (q) => q.where('status', '=', where.status!))
    .$if(where.invoiceId !== undefined, (q) => q.where('invoice_id', '=', where.invoiceId!))
    .$if(where.isTest !== undefined, (q) => q.where('is_test', '=', where.isTest!));
}

/** Writes transfers directly (sandbox load beside a live deposit): Pending, no block. */
export async function insertTransfers(
  on: CryptoQueries,
  rows: { invoiceId: string; merchantId: string; isTest: boolean; txHash: string; fromAddress: string; toAddress: string; amount: string; currency: Currency; network: Network; requiredConfirmations: number; createdAt: Date }[],
): Promise<void> {
  await on.$kysely
    .insertInto('transactions')
    .values(
      rows.map((r) => ({
        id: randomUUID(),
        invoice_id: r.invoiceId,
        merchant_id: r.merchantId,
        is_test: r.isTest,
        tx_hash: r.txHash,
        from_address: r.fromAddress,
        to_address: r.toAddress,
        amount: r.amount,
        currency: r.currency,
        network: r.network,
        required_confirmations: r.requiredConfirmations,
        created_at: r.createdAt,
      })),
    )
    .execute();
}
