import { Type } from '@sinclair/typebox';
import { assertLiveKey, ownerOf } from '@pay/auth';
import { exactBodyMember, type Api } from '@pay/http';
import type { V1Deps } from '../../../deps';
import { cancelInvoice } from '../cancel';
import { enabledCurrencies, setEnabledCurrencies } from '../currencies';
import { getInvoice } from '../invoices';
import { sandboxPay } from '../sandbox-pay';
import { assertKnownIdShape, createV1Invoice } from './invoices';
import { CreateV1InvoiceBody, CurrencySettings, V1CreatedInvoice, V1Invoice, V1InvoiceParams, V1SandboxPayBody } from './schemas';
import { v1CreatedJson, v1InvoiceJson } from './views';

const tags = ['Invoices v1'];
const STATES =
  'Statuses are lower case: pending → paid (payment), pending → expired (at `expiresAt`), pending → cancelled (merchant). ' +
  'Errors are bare: `{ error: { code, message, details? } }`.';

/** Invoicing API v1 (key only, bare answers): invoices, their sandbox payment, and the merchant's currencies. */
export function v1InvoiceRoutes(api: Api, deps: V1Deps): void {
  const url = deps.config.PUBLIC_URL;
  const detail = async (auth: Parameters<typeof ownerOf>[0], id: string) => {
    const invoice = await getInvoice(deps, ownerOf(auth), id);
    return { ...v1InvoiceJson(invoice, url), review: await deps.reviewOfInvoice(deps.db, invoice) };
  };

  api.route({
    method: 'post',
    path: '/api/v1/invoices',
    operationId: 'v1CreateInvoice',
    summary: 'Create an invoice (v1)',
    description:
      'An SBP invoice in `currency`, which must be enabled for the merchant (`CURRENCY_NOT_ENABLED` otherwise; RUB by default, see ' +
      '`PUT /api/v1/settings/currencies`). Amount exact, at most 2 decimal places. `expiresAt` defaults to 24 h from now; a past one is ' +
      'refused (400). `metadata` comes back exactly as given: the JSON text sent (digits, `2.50`, key order, escapes), here, on GET and in webhooks. After payment the hosted page sends the customer to `successUrl` at once when ' +
      'given; otherwise it shows the paid status, with a link back to `redirectUrl` when given. ' +
      STATES,
    tags,
    auth: 'key',
    idempotent: true,
    body: CreateV1InvoiceBody,
    response: { status: 201, schema: V1CreatedInvoice },
    errors: ['CURRENCY_NOT_ENABLED', 'PAYMENT_METHOD_NOT_ENABLED'],
    handler: async ({ req, auth, body, idempotency }) => {
      const created = await createV1Invoice(deps, ownerOf(auth), { ...body, metadata: exactBodyMember(req, 'metadata') }, idempotency);
      return { status: 201, body: v1CreatedJson(created, url) };
    },
  });

  api.route({
    method: 'get',
    path: '/api/v1/invoices/:invoiceId',
    operationId: 'v1GetInvoice',
    summary: 'Get an invoice (v1)',
    description: 'The create fields, plus `qrCodeUrl` (SBP), and after payment `paidAt`, `sbpTransactionId` and `payerBank` (SBP). ' + STATES,
    tags,
    auth: 'key',
    params: V1InvoiceParams,
    response: { status: 200, schema: V1Invoice },
    errors: ['NOT_FOUND'],
    handler: async ({ auth, params }) => {
      assertKnownIdShape(params.invoiceId);
      return { body: await detail(auth, params.invoiceId) };
    },
  });

  api.route({
    method: 'post',
    path: '/api/v1/invoices/:invoiceId/cancel',
    operationId: 'v1CancelInvoice',
    summary: 'Cancel an invoice (v1)',
    description: 'Only a pending invoice not yet past `expiresAt`; records `invoice.cancelled`. Answers the invoice as GET does.',
    tags,
    auth: 'key',
    params: V1InvoiceParams,
    response: { status: 200, schema: V1Invoice },
    errors: ['NOT_FOUND', 'INVOICE_ALREADY_PAID', 'INVOICE_EXPIRED', 'INVOICE_CANCELLED'],
    handler: async ({ auth, params }) => {
      assertKnownIdShape(params.invoiceId);
      await cancelInvoice(deps, ownerOf(auth), params.invoiceId);
      return { body: await detail(auth, params.invoiceId) };
    },
  });

  api.route({
    method: 'post',
    path: '/api/v1/sandbox/invoices/:invoiceId/pay',
    operationId: 'v1SandboxPayInvoice',
    summary: 'Pay an invoice in the sandbox (v1, test mode)',
    description:
      'Test keys only; what the acquirer’s success notification does to the invoice: paid, `paidAt`, `payerBank` (default `Sandbox Bank`) ' +
      'and `sbpTransactionId` set, `invoice.paid` recorded. Refused with nothing written when the invoice is not pending.',
    tags: ['Sandbox'],
    auth: 'key',
    idempotent: true,
    params: V1InvoiceParams,
    body: V1SandboxPayBody,
    response: { status: 200, schema: V1Invoice },
    errors: ['FORBIDDEN', 'NOT_FOUND', 'INVOICE_ALREADY_PAID', 'INVOICE_EXPIRED', 'INVOICE_CANCELLED', 'CUSTOMER_BLOCKED', 'KYC_REQUIRED'],
    handler: async ({ auth, params, body }) => {
      assertKnownIdShape(params.invoiceId);
      await sandboxPay(deps, auth, params.invoiceId, body);
      return { body: await detail(auth, params.invoiceId) };
    },
  });

  api.route({
    method: 'get',
    path: '/api/v1/settings/currencies',
    operationId: 'v1GetCurrencies',
    summary: 'The currencies the merchant may invoice in',
    description: 'RUB only until changed. Applies to both modes and to v1, v2 and batch invoices.',
    tags: ['Settings'],
    auth: 'key',
    response: { status: 200, schema: CurrencySettings },
    handler: async ({ auth }) => ({ body: { enabledCurrencies: await enabledCurrencies(deps.db, auth.merchantId) } }),
  });

  api.route({
    method: 'put',
    path: '/api/v1/settings/currencies',
    operationId: 'v1SetCurrencies',
    summary: 'Change the currencies the merchant may invoice in',
    description:
      'Replaces the set (at least one of USD, EUR, RUB, KZT). Invoices already created keep their currency; new ones in a currency left out ' +
      'are refused with 422 `CURRENCY_NOT_ENABLED`. v2 invoices are in RUB: leaving RUB out refuses them too. The set applies to both ' +
      'modes, so only a live key changes it (403 `FORBIDDEN` with a test key, which may read it), as with the crypto webhook URL.',
    tags: ['Settings'],
    auth: 'key',
    body: CurrencySettings,
    response: { status: 200, schema: CurrencySettings },
    errors: ['FORBIDDEN'],
    handler: async ({ auth, body }) => {
      assertLiveKey(auth, 'change the currencies, which live invoices use');
      return { body: { enabledCurrencies: await setEnabledCurrencies(deps.db, auth.merchantId, body.enabledCurrencies, deps.clock.now()) } };
    },
  });
}
