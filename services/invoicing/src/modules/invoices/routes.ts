import { Type } from '@sinclair/typebox';
import { ownerOf } from '@pay/auth';
import { exactBodyMember, paginationOf, type Api } from '@pay/http';
import { OffsetPage } from '@pay/schemas';
import type { InvoiceRoutesDeps } from '../../deps';
import { cancelInvoice } from './cancel';
import { createInvoice, listInvoices } from './invoices';
import { sandboxPay } from './sandbox-pay';
import {
  CreatedInvoice,
  CreateInvoiceBody,
  InvoiceDetail,
  InvoiceListItem,
  InvoiceParams,
  ListInvoicesQuery,
  SandboxPayBody,
} from './schemas';
import { createdInvoiceJson, invoiceListItemJson } from './views';
import { invoiceDetailJson } from './detail';

const tags = ['Invoices'];

const LIFECYCLE =
  'States: PENDING → PAID (payment; `paidAt`, event `invoice.paid`), PENDING → EXPIRED (at `expiresAt`, within 5 s; `invoice.expired`), ' +
  'PENDING → CANCELLED (merchant; `invoice.cancelled`). A PAID invoice stays PAID after refunds, full or partial (`invoice.refunded` each). ' +
  'An invoice past `expiresAt` cannot be paid or cancelled even before it shows EXPIRED.';

/** What every invoice event carries: the routes that record one (here, and the refunds') say so. */
export const EVENT_BODY =
  'Every invoice event has the body `{ event, timestamp (ms), livemode, invoice: { id, invoiceNumber, amount, currency, livemode, status, paymentMethod, payerBank, refundedAmount, paidAt, metadata, customerEmail, customerPhone } }` ' +
  '(amount in `currency`: rubles for v2 invoices); `invoice.refunded` adds `refund` (the refund record).';

export function invoiceRoutes(api: Api, deps: InvoiceRoutesDeps): void {
  const url = deps.config.PUBLIC_URL;
  const detail = (owner: ReturnType<typeof ownerOf>, id: string) => invoiceDetailJson(deps, owner, id);

  api.route({
    method: 'post',
    path: '/api/v2/invoices',
    operationId: 'createInvoice',
    summary: 'Create an invoice',
    description:
      'Amount in rubles with kopecks kept exactly (at most 2 decimal places). SBP by default: the answer carries `qrCode` (PNG data URI, made once) ' +
      'and `qrPayload` (the link it encodes); `paymentMethod: "card"` gives `originalPaymentUrl` instead. Both have `paymentLink`, the hosted page. ' +
      '`expiresAt` = now + `expiresInHours` (default 1, from 1/60 (one minute) to 720). `customer` is always null here. ' +
      'A customer is found or created from customerEmail / customerPhone when the invoice is paid. ' +
      'Test keys create test invoices (sandbox provider); live invoices need a live payment provider (LIVE_PAYMENT_PROVIDER=tbank), else 422 PAYMENT_METHOD_NOT_ENABLED. ' +
      'When the provider cannot be reached: 503 with Retry-After and nothing created; when it refuses: 422 ACQUIRER_REFUSED with its code in `details`. ' +
      LIFECYCLE,
    tags,
    auth: 'signed',
    idempotent: true,
    body: CreateInvoiceBody,
    response: { status: 201, schema: Type.Object({ invoice: CreatedInvoice }) },
    errors: ['PAYMENT_METHOD_NOT_ENABLED', 'CURRENCY_NOT_ENABLED', 'ACQUIRER_REFUSED', 'SERVICE_UNAVAILABLE'],
    handler: async ({ req, auth, body, idempotency }) => {
      const created = await createInvoice(deps, ownerOf(auth), { ...body, metadata: exactBodyMember(req, 'metadata') }, idempotency);
      return { status: 201, body: { invoice: createdInvoiceJson(created, url) } };
    },
  });

  api.route({
    method: 'get',
    path: '/api/v2/invoices/:invoiceId',
    operationId: 'getInvoice',
    summary: 'Get an invoice',
    description: 'Every field, with `customer` (`{ id, fullName, email, kycStatus }`, the customer with the invoice’s e-mail or phone; bound when paid) or null.',
    tags,
    auth: 'signed',
    params: InvoiceParams,
    response: { status: 200, schema: Type.Object({ invoice: InvoiceDetail }) },
    errors: ['NOT_FOUND'],
    handler: async ({ auth, params }) => ({ body: { invoice: await detail(ownerOf(auth), params.invoiceId) } }),
  });

  api.route({
    method: 'get',
    path: '/api/v2/invoices',
    operationId: 'listInvoices',
    summary: 'List invoices',
    description:
      'Newest first. `limit` default 50, at most 1000. Items omit `receiptRequired`, `customer`, `customerPhone` and `originalPaymentUrl`. ' +
      'Beyond the spec’s `status`, optional filters (all combine): `paymentMethod` (`sbp`, `card`), `createdFrom` and `createdTo` (UTC days, both included; ' +
      'a day that is not a date, or `createdFrom` after `createdTo`, is a 400 naming the field) and `search`. The key’s mode decides which invoices are listed: ' +
      'a test key lists test invoices, a live key live ones; there is no mode parameter.',
    tags,
    auth: 'signed',
    query: ListInvoicesQuery,
    response: { status: 200, schema: OffsetPage(InvoiceListItem) },
    handler: async ({ auth, query }) => {
      const { rows, total } = await listInvoices(deps, ownerOf(auth), query);
      return { body: { data: rows.map((r) => invoiceListItemJson(r, url)), pagination: paginationOf(total, query) } };
    },
  });

  api.route({
    method: 'post',
    path: '/api/v2/invoices/:invoiceId/cancel',
    operationId: 'cancelInvoice',
    summary: 'Cancel an invoice',
    description: 'Only a PENDING invoice not yet past `expiresAt`; records `invoice.cancelled`. Answers the invoice as GET does. ' + EVENT_BODY,
    tags,
    auth: 'signed',
    params: InvoiceParams,
    response: { status: 200, schema: Type.Object({ invoice: InvoiceDetail }) },
    errors: ['NOT_FOUND', 'INVOICE_ALREADY_PAID', 'INVOICE_EXPIRED', 'INVOICE_CANCELLED'],
    handler: async ({ auth, params }) => {
      await cancelInvoice(deps, ownerOf(auth), params.invoiceId);
      return { body: { invoice: await detail(ownerOf(auth), params.invoiceId) } };
    },
  });

}

/** The sandbox's payment of an invoice (test keys), mounted after the refunds (modules/refunds/routes.ts), where the API document lists it. */
export function sandboxRoutes(api: Api, deps: InvoiceRoutesDeps): void {
  const detail = (owner: ReturnType<typeof ownerOf>, id: string) => invoiceDetailJson(deps, owner, id);

  api.route({
    method: 'post',
    path: '/api/v2/sandbox/invoices/:invoiceId/pay',
    operationId: 'sandboxPayInvoice',
    summary: 'Pay an invoice in the sandbox (test mode)',
    description:
      'Test keys only. Does what the provider’s success notification does: PAID with `paidAt`, the customer found or created and counted, ' +
      '`invoice.paid` recorded. Refused, with nothing written, for an invoice already paid, expired (or past `expiresAt`), cancelled, ' +
      'of a blocked customer (`CUSTOMER_BLOCKED`), or needing KYC not yet done (`KYC_REQUIRED`). ' +
      EVENT_BODY,
    tags: ['Sandbox'],
    auth: 'signed',
    idempotent: true,
    params: InvoiceParams,
    body: SandboxPayBody,
    response: { status: 200, schema: Type.Object({ invoice: InvoiceDetail }) },
    errors: ['FORBIDDEN', 'NOT_FOUND', 'INVOICE_ALREADY_PAID', 'INVOICE_EXPIRED', 'INVOICE_CANCELLED', 'CUSTOMER_BLOCKED', 'KYC_REQUIRED'],
    handler: async ({ auth, params, body }) => {
      await sandboxPay(deps, auth, params.invoiceId, body);
      return { body: { invoice: await detail(ownerOf(auth), params.invoiceId) } };
    },
  });
}
