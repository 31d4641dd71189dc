type Sql = { $executeRawUnsafe(query: string, ...values: unknown[]): Promise<number> };

/** Rows deleted per statement: small enough that no delete holds locks or bloats WAL for long. */
export const PRUNE_BATCH = 5000;

/**
 * Deletes the rows `selectIds` picks (a `SELECT <key> … LIMIT $1` over `table`), one batch
 * per statement until a batch comes back short. Returns how many went.
 */
export async function deleteInBatches(db: Sql, table: string, key: string, selectIds: string, ...values: unknown[]): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await db.$executeRawUnsafe(`DELETE FROM ${table} WHERE ${key} IN (${selectIds})`, PRUNE_BATCH, ...values);
    total += n;
    if (n < PRUNE_BATCH) return total;
  }
}
