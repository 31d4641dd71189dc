/**
 * What the invoices module publishes to the other modules of invoicing: the named functions of
 * its store (store.ts, the one file whose statements name the invoices table) that they may
 * call, grouped by who calls them. No other module imports the store itself (the dependency
 * rules' modules-not-to-other-stores), so the store can change behind this list.
 */
export {
  // Everyone that changes an invoice in a transaction: settlement, receipts, reviews, refunds.
  lockInvoice,
  type InvoiceRow,
  // Settlement (what the acquirers' reports do to invoices, and expiry after asking them).
  dueWithOpenAcquirerPayment,
  existingInvoiceIds,
  expireDue,
  recordConfirmedPayment,
  selectInvoiceById,
  setPaymentTarget,
  // Batches: their invoices written in chunks, their e-mails, their export and totals.
  batchInvoices,
  batchPaidTotals,
  batchRecipients,
  countBatchInvoices,
  drawBatchQrCodes,
  insertInvoices,
  invoicesForEmails,
  takenExternalIds,
  // KYC: an approved session marks its invoice; a session shows its invoice.
  boundCustomerOf,
  markKycVerified,
  selectInvoice,
  // Receipts: what a receipt is uploaded for.
  receiptTargetOf,
  // Reviews: the invoice a review is about.
  invoiceLabelsOf,
  // Refunds: what was refunded, and the acquirer's orders.
  addRefunded,
  currencyOf,
  externalOrdersOf,
} from './store';
