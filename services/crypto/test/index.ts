/**
 * What crypto's test support offers outside the service, as `@pay/crypto/test`: the bench and
 * e2e tests use these. The rest of test/ is the service's own tests' business
 * (.dependency-cruiser.cjs: test-support-through-its-entry), so it can change with them.
 */
export type { SqlQuery } from './withdrawals/store';
export { openWithdrawalListIn, openWithdrawalsIn, withdrawalsByKeyIn } from './withdrawals/store';
export { withdrawalStatusCountsIn } from './withdrawals/totals-store';
export { transactionCountIn } from './transactions/totals-store';
export { invoiceStatusCountsIn } from './invoices/totals-store';
export { postingsByKindIn } from './ledger/totals-store';
export { forgetDevnet, forgetPayouts, forgetSweeps, forgetWatcher } from './chains/store';
export { cursorBlockIn } from './chains/totals-store';
