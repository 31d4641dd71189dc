import type { InvoicingDb, Prisma } from './db';
import { isUniqueViolation } from '@pay/kit';

export type Tx = Prisma.TransactionClient;

/**
 * How long a state change may wait for a connection, and run. Concurrent changes of one
 * invoice queue on its row lock while holding a connection, so the wait for one is generous:
 * a burst must slow down, not fail.
 */
const TX_OPTIONS = { maxWait: 15_000, timeout: 20_000 };
/** A unique index lost to a concurrent writer (two first payments of one new customer): run again. */
const CONFLICT_ATTEMPTS = 3;

/** Runs `fn` in one transaction; retried when a concurrent insert took a unique value first. */
export async function inTransaction<T>(db: InvoicingDb, fn: (tx: Tx) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.$transaction(fn, TX_OPTIONS);
    } catch (err) {
      if (attempt >= CONFLICT_ATTEMPTS || !isUniqueViolation(err)) throw err;
    }
  }
}
