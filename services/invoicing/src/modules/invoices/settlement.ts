/**
 * What the payments module (the acquirers, the payment of an invoice) reads and writes of
 * invoices: the invoices store's functions it publishes to them, so that no other module imports
 * the store itself (the dependency rules' modules-not-to-other-stores). The statements stay in
 * store.ts, the one file that names the invoices table.
 */
export { existingInvoiceIds, lockInvoice, markPaid, recordConfirmedPayment, selectInvoiceById, setPaymentTarget, type InvoiceRow } from './store';
