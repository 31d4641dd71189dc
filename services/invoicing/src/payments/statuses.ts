/**
 * Acquirer payment statuses (T-Bank's status model) that the invoice code needs to name, kept
 * apart from the acquirer's store so invoices/store.ts can use them without importing it.
 */

/** The payer's bank or the acquirer refused the payment: no money moved, the payer may try again with a fresh payment. */
export const DECLINED_STATUSES = new Set(['REJECTED', 'AUTH_FAIL', 'ATTEMPTS_EXPIRED']);

/** Statuses after which the payer can no longer pay: nothing left to reconcile for the payment. */
export const SETTLED_STATUSES = ['CONFIRMED', 'REJECTED', 'AUTH_FAIL', 'CANCELED', 'DEADLINE_EXPIRED', 'ATTEMPTS_EXPIRED', 'REVERSED', 'PARTIAL_REFUNDED', 'REFUNDED', 'REFUNDING', 'ASYNC_REFUNDING'];
