import { randomUUID } from 'node:crypto';
import type { Static } from '@sinclair/typebox';
import type { Owner } from '@pay/auth';
import { parseMoney, readableNumber } from '@pay/kit';
import { ApiError } from '@pay/schemas';
import type { InvoicingDeps } from '../deps';
import type { PaymentProvider } from '../payments/provider';
import { qrPngDataUri } from '../payments/qr';
import { EXPIRES_IN_HOURS, type CreateInvoiceBody } from './schemas';
import { insertInvoice, selectInvoice, selectInvoices, type CreatedInvoiceRow, type InvoiceStatus, type InvoiceWithCustomer } from './store';

/** Rubles and the other fiat currencies have kopecks (cents): two places (decisions.md §5). */
export const FIAT_DECIMALS = 2;
const HOUR_MS = 3_600_000;
/** Draws of an invoice number before giving up; one collision in 10^12 makes a second draw already rare. */
const NUMBER_ATTEMPTS = 3;

/** The provider of the caller's mode; live mode needs one configured (the sandbox never takes live money). */
export function providerFor(deps: Pick<InvoicingDeps, 'providers'>, owner: Owner): PaymentProvider {
  const provider = owner.isTest ? deps.providers.test : deps.providers.live;
  if (!provider) {
    throw new ApiError(
      'PAYMENT_METHOD_NOT_ENABLED',
      'Live payments are not enabled: this deployment connects no live payment provider. Use a test key (sk_test_…) with the sandbox.',
    );
  }
  return provider;
}

export type CreateInvoiceInput = Static<typeof CreateInvoiceBody>;

/**
 * Opens the provider's order, draws the SBP QR once, and writes the invoice in one statement.
 * The QR is stored: reads never draw one.
 */
export async function createInvoice(deps: InvoicingDeps, owner: Owner, input: CreateInvoiceInput): Promise<CreatedInvoiceRow> {
  const provider = providerFor(deps, owner);
  const amount = parseMoney(input.amount, { decimals: FIAT_DECIMALS });
  const now = deps.clock.now();
  const id = randomUUID();
  const method = input.paymentMethod ?? 'sbp';
  const expiresAt = new Date(now.getTime() + Math.round((input.expiresInHours ?? EXPIRES_IN_HOURS.default) * HOUR_MS));
  const description = input.description ?? null;
  const order = await provider.createOrder({ invoiceId: id, amount, currency: 'RUB', method, description, expiresAt });
  const row = {
    id,
    merchant_id: owner.merchantId,
    is_test: owner.isTest,
    api: 'v2',
    amount: amount.toFixed(),
    currency: 'RUB',
    description,
    payment_method: method,
    customer_email: input.customerEmail ?? null,
    customer_name: input.customerName ?? null,
    customer_phone: input.customerPhone ?? null,
    kyc_required: input.kycRequired ?? false,
    receipt_required: input.receiptRequired ?? false,
    provider: provider.name,
    external_order_id: order.externalOrderId,
    qr_code: order.qrPayload ? qrPngDataUri(order.qrPayload) : null,
    qr_payload: order.qrPayload ?? null,
    original_payment_url: order.originalPaymentUrl ?? null,
    metadata: input.metadata ?? null,
    redirect_url: null,
    success_url: null,
    external_id: null,
    batch_id: null,
    expires_at: expiresAt,
    created_at: now,
  };
  for (let attempt = 1; attempt <= NUMBER_ATTEMPTS; attempt++) {
    const created = await insertInvoice(deps.sql, { ...row, invoice_number: readableNumber('INV', now) });
    if (created) return created;
    deps.logger.warn({ invoiceId: id, attempt }, 'invoice number collision; drawing another');
  }
  throw new Error(`no free invoice number after ${NUMBER_ATTEMPTS} draws`);
}

export async function getInvoice(deps: InvoicingDeps, owner: Owner, id: string): Promise<InvoiceWithCustomer> {
  const invoice = await selectInvoice(deps.sql, owner, id);
  if (!invoice) throw new ApiError('NOT_FOUND', `Invoice ${id} not found`);
  return invoice;
}

export function listInvoices(deps: InvoicingDeps, owner: Owner, q: { limit: number; offset: number; status?: InvoiceStatus }) {
  return selectInvoices(deps.sql, owner, q);
}
