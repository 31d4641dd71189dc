import { Type } from '@sinclair/typebox';
import { ownerOf } from '@pay/auth';
import type { Api } from '@pay/http';
import type { InvoicesDeps } from '../../deps';
import { EVENT_BODY } from '../invoices/routes';
import { InvoiceParams, RefundBody, RefundedInvoice, RefundRecord } from '../invoices/schemas';
import { listRefunds, refundedInvoiceJson, refundInvoice, refundJson } from './refunds';

const tags = ['Invoices'];

/** Refunds of an invoice (v2): make one, list them. */
export function refundRoutes(api: Api, deps: InvoicesDeps): void {
  api.route({
    method: 'post',
    path: '/api/v2/invoices/:invoiceId/refunds',
    operationId: 'createRefund',
    summary: 'Refund a paid invoice, fully or in part',
    description:
      'Without `amount`, refunds all that is not refunded yet. Refunds of one invoice never add up to more than its amount, however many ' +
      'arrive at once (they queue on the invoice). The refund record is `{ id, invoiceId, amount, currency, status, reason, failureReason, ' +
      'createdAt, settledAt }`; status is SUCCEEDED once the provider confirms (at once in the sandbox), PENDING while it has not answered ' +
      '(finished in the background), FAILED if it refused (the amount can be refunded again). The invoice stays PAID after any refund, ' +
      'full included; `invoice.refundedAmount` and `refundableAmount` show where it stands. Each SUCCEEDED refund lowers the customer’s ' +
      '`totalAmount` (payments counted and trust level stay) and records `invoice.refunded` with the `refund`. ' +
      EVENT_BODY,
    tags,
    auth: 'signed',
    idempotent: true,
    params: InvoiceParams,
    body: RefundBody,
    response: { status: 201, schema: Type.Object({ refund: RefundRecord, invoice: RefundedInvoice }) },
    errors: ['NOT_FOUND', 'INVOICE_NOT_PAID', 'REFUND_EXCEEDS_PAID'],
    handler: async ({ auth, params, body, idempotency }) => {
      const { refund, invoice } = await refundInvoice(deps, ownerOf(auth), params.invoiceId, body, idempotency);
      return { status: 201, body: { refund: refundJson(refund, invoice.currency), invoice: refundedInvoiceJson(invoice) } };
    },
  });

  api.route({
    method: 'get',
    path: '/api/v2/invoices/:invoiceId/refunds',
    operationId: 'listRefunds',
    summary: 'List the refunds of an invoice',
    description: 'Oldest first.',
    tags,
    auth: 'signed',
    params: InvoiceParams,
    response: { status: 200, schema: Type.Object({ data: Type.Array(RefundRecord) }) },
    errors: ['NOT_FOUND'],
    handler: async ({ auth, params }) => ({ body: { data: (await listRefunds(deps, ownerOf(auth), params.invoiceId)).map((r) => refundJson(r, r.currency)) } }),
  });

}
