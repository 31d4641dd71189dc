/**
 * What the transactions module publishes for other owners' statements (the invoices store's
 * EXISTS tests). The statements are its store's.
 */
export { transfersToInvoice } from './store';
