/** Rows deleted per statement: small enough that no delete holds locks or bloats WAL for long. */
export const PRUNE_BATCH = 5000;

/**
 * Runs the owner's `deleteBatch` (one typed DELETE of at most `batch` rows) until a batch
 * comes back short. Returns how many went.
 */
export async function deleteInBatches(deleteBatch: (batch: number) => Promise<number>): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await deleteBatch(PRUNE_BATCH);
    total += n;
    if (n < PRUNE_BATCH) return total;
  }
}
