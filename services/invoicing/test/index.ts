/**
 * What invoicing's test support offers outside the service, as `@pay/invoicing/test`: the bench
 * and e2e tests use these. The rest of test/ is the service's own tests' business
 * (.dependency-cruiser.cjs: test-support-through-its-entry), so it can change with them.
 */
export { newMerchant, newMerchantIn, startBuiltInvoicing, startInvoicingApp, v1Request, v2Request, type TestMerchant } from './test-support';
export { moscowDay, multipartBody, receiptPdf, receiptPng, uploadReceiptRequest } from './receipts/test-fixtures';
export { countReceipts } from './receipts/store';
export { documentForm, postDocuments } from './kyc/fixtures';
export { expireNowIn, invoicesByKey, invoiceStatusesIn, pendingInvoicesIn, batchInvoiceCountsIn, type SqlQuery } from './invoices/store';
export { unfinishedBatchWorkIn, batchesCreatedIn, emailOutcomesIn } from './batch/store';
export { customerTotalsIn } from './customers/store';
export { refundStatusCountsIn } from './refunds/store';
