import type { InvoicingDb, InvoicingTx } from './db';
import { isUniqueViolation, TRANSACTION_OPTIONS } from '@pay/db';

export type Tx = InvoicingTx;

/** A unique index lost to a concurrent writer (two first payments of one new customer): run again. */
const CONFLICT_ATTEMPTS = 3;

/** Runs `fn` in one transaction; retried when a concurrent insert took a unique value first. */
export async function inTransaction<T>(db: InvoicingDb, fn: (tx: Tx) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.$transaction(fn, TRANSACTION_OPTIONS);
    } catch (err) {
      if (attempt >= CONFLICT_ATTEMPTS || !isUniqueViolation(err)) throw err;
    }
  }
}
