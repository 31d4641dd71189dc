import type { CryptoQueries } from '../../src/db';
import type { TransactionStatus } from '../../src/generated/kysely/tables';

/** Tests' reads of `crypto.transactions` (the transactions module's table): only here. */

/** A transfer's status (it must exist). */
export async function transactionStatus(on: CryptoQueries, id: string): Promise<TransactionStatus> {
  return (await on.$kysely.selectFrom('transactions').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;
}
