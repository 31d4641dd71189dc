/**
 * The customer a payment, a refund or a KYC decision acts on, for the modules that count and
 * verify payers (payments, refunds, kyc) and the invoices store's joins: the customers
 * module's published functions. The statements are its store's.
 */
export { countPayment, countRefund, createVerifiedCustomer, customerKycVerifiedOf, invoiceCustomer, lockPayer, setCustomerKyc, type CustomerRow, type InvoiceEb, type PayerRef } from './store';
