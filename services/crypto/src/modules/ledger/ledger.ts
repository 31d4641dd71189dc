/**
 * The ledger: balances, postings and their sums, for every other module (transfers,
 * withdrawals, statistics, solvency). The statements are its store's (store.ts).
 */
export { balances, InsufficientFunds, liveLedgerTotals, lockBalance, post, postedAmount, sumOfKind, type Balance, type Posting } from './store';
