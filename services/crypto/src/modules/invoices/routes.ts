import { DataBody, PagedData } from '@pay/schemas';
import { type Api, pageOf } from '@pay/http';
import type { CryptoDeps } from '../../deps';
import { createInvoice, getInvoice, listInvoices } from './service';
import { createdInvoiceJson, invoiceJson } from './views';
import { CreatedInvoice, CreateInvoiceBody, InvoiceDetail, InvoiceParams, ListInvoicesQuery } from './schemas';
import { ownerOf } from '@pay/auth';

const tags = ['Invoices'];

export function invoiceRoutes(api: Api, deps: CryptoDeps): void {
  const url = deps.config.PUBLIC_URL;
  api.route({
    method: 'post',
    path: '/api/v1/invoices',
    operationId: 'createInvoice',
    summary: 'Create a crypto invoice',
    description:
      'Each invoice gets its own deposit address on the currency’s network. A transfer seen before `expiresAt` counts toward it, ' +
      'even if it confirms later. Outcomes: the sum reaches the amount → `Paid` (an overpayment is Paid, with `amountReceived` above ' +
      '`amount`); part of it → `PartiallyPaid`, then `Underpaid` at expiry; nothing → `Expired`. A late transfer (seen after expiry) ' +
      'is credited to the balance and leaves the invoice as it was. Every confirmed transfer is credited net of the merchant’s `feePercent`.',
    tags,
    auth: 'key',
    idempotent: true,
    body: CreateInvoiceBody,
    response: { status: 201, schema: DataBody(CreatedInvoice) },
    errors: ['CURRENCY_NOT_ENABLED'],
    handler: async ({ auth, body }) => ({ status: 201, body: { data: createdInvoiceJson(await createInvoice(deps, ownerOf(auth), body), url) } }),
  });

  api.route({
    method: 'get',
    path: '/api/v1/invoices/:invoiceId',
    operationId: 'getInvoice',
    summary: 'Get a crypto invoice',
    tags,
    auth: 'key',
    params: InvoiceParams,
    response: { status: 200, schema: DataBody(InvoiceDetail) },
    errors: ['NOT_FOUND'],
    handler: async ({ auth, params }) => ({ body: { data: invoiceJson(await getInvoice(deps, ownerOf(auth), params.invoiceId), url) } }),
  });

  api.route({
    method: 'get',
    path: '/api/v1/invoices',
    operationId: 'listInvoices',
    summary: 'List crypto invoices',
    description: 'Newest first.',
    tags,
    auth: 'key',
    query: ListInvoicesQuery,
    response: { status: 200, schema: DataBody(PagedData(InvoiceDetail)) },
    handler: async ({ auth, query }) => {
      const { items, totalCount } = await listInvoices(deps, ownerOf(auth), query);
      return { body: { data: pageOf(items.map((i) => invoiceJson(i, url)), totalCount, query) } };
    },
  });
}
