import { randomUUID } from 'node:crypto';
import type { Static } from '@sinclair/typebox';
import type { Owner } from '@pay/auth';
import { IDEMPOTENCY_TTL_MS, type IdempotentRun, type RawJson } from '@pay/http';
import { readableNumber } from '@pay/runtime';
import { type Money } from '@pay/money';
import { ApiError, parseDay, parseMoney } from '@pay/schemas';
import type { InvoicingDeps, InvoicesDeps } from '../../deps';
import type { PaymentMethod, PaymentProvider } from '../../payments/provider';
import { assertCurrencyEnabled, type Currency } from './currencies';
import { qrPngDataUri } from '../../payments/qr';
import { EXPIRES_IN_HOURS, type CreateInvoiceBody } from './schemas';
import { insertInvoice, selectCreatedByKey, selectInvoice, selectInvoiceById, selectInvoices, withQrCodes, type CreatedInvoiceRow, type InvoiceFilter, type InvoiceStatus, type InvoiceWithCustomer } from './store';

/** Rubles and the other fiat currencies have kopecks (cents): two places. */
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

/** The create body, `metadata` as the exact JSON text the merchant sent (`exactBodyMember`). */
export type CreateInvoiceInput = Omit<Static<typeof CreateInvoiceBody>, 'metadata'> & { metadata?: RawJson };
export type { Currency, InvoiceWithCustomer };

/**
 * An invoice to open, whichever API asked: v2 (rubles, `expiresInHours`), v1 (a currency,
 * `expiresAt`, return URLs) and batch rows (an `externalId` and the batch) all become this.
 */
export interface InvoiceSpec {
  api: 'v1' | 'v2';
  amount: Money;
  currency: Currency;
  method: PaymentMethod;
  description: string | null;
  expiresAt: Date;
  /** Stored and answered as the very text the merchant sent (issue 11: "returned as given"). */
  metadata?: RawJson | null;
  customerEmail?: string | null;
  customerName?: string | null;
  customerPhone?: string | null;
  kycRequired?: boolean;
  receiptRequired?: boolean;
  redirectUrl?: string | null;
  successUrl?: string | null;
  externalId?: string | null;
  batchId?: string | null;
  /**
   * Leave the QR image out of the row: its first view draws it (withQrCodes). For creates
   * whose answer does not carry it: v1 (≈0.25 ms of CPU, a fifth of the create) and batches
   * (most of a 1,000-row batch's writing; the batch also draws its images once completed,
   * drawBatchQrCodes). A v2 create answers `qrCode`, so it draws it now.
   */
  qrLater?: boolean;
  /** The request's Idempotency-Key, kept on the invoice: a resumed request answers the invoice already made with it. */
  idempotency?: IdempotentRun;
}

/**
 * The row of a new invoice: opens the provider's order and draws the SBP QR once (unless
 * `qrLater`). Everything but the invoice number, which the insert draws.
 */
export async function newInvoiceRow(deps: Pick<InvoicingDeps, 'providers'>, owner: Owner, spec: InvoiceSpec, now: Date, id: string = randomUUID()) {
  const provider = providerFor(deps, owner);
  const order = await provider.createOrder({
    invoiceId: id,
    amount: spec.amount,
    currency: spec.currency,
    method: spec.method,
    description: spec.description,
    expiresAt: spec.expiresAt,
    merchantId: owner.merchantId,
    isTest: owner.isTest,
    customerEmail: spec.customerEmail ?? null,
    customerPhone: spec.customerPhone ?? null,
    idempotencyKey: spec.idempotency?.key ?? null,
  });
  return {
    // The provider may have resumed an earlier attempt of this Idempotency-Key, with its invoice id.
    id: order.invoiceId,
    merchant_id: owner.merchantId,
    is_test: owner.isTest,
    api: spec.api,
    amount: spec.amount.toFixed(),
    currency: spec.currency,
    description: spec.description,
    payment_method: spec.method,
    customer_email: spec.customerEmail ?? null,
    customer_name: spec.customerName ?? null,
    customer_phone: spec.customerPhone ?? null,
    kyc_required: spec.kycRequired ?? false,
    receipt_required: spec.receiptRequired ?? false,
    provider: provider.name,
    external_order_id: order.externalOrderId,
    qr_code: order.qrPayload && !spec.qrLater ? qrPngDataUri(order.qrPayload) : null,
    qr_payload: order.qrPayload ?? null,
    original_payment_url: order.originalPaymentUrl ?? null,
    metadata: spec.metadata?.text ?? null,
    redirect_url: spec.redirectUrl ?? null,
    success_url: spec.successUrl ?? null,
    external_id: spec.externalId ?? null,
    batch_id: spec.batchId ?? null,
    expires_at: spec.expiresAt,
    created_at: now,
    idempotency_key: spec.idempotency?.key ?? null,
  };
}

export type NewRow = Awaited<ReturnType<typeof newInvoiceRow>>;

/**
 * THE creation of one invoice, for every API: one statement writes the row if its currency is
 * enabled for the merchant (422 CURRENCY_NOT_ENABLED otherwise); a taken number draws again.
 */
export async function openInvoice(deps: InvoicesDeps, owner: Owner, spec: InvoiceSpec): Promise<CreatedInvoiceRow> {
  const now = deps.clock.now();
  if (spec.idempotency?.resumed) {
    // The request this one resumes died after its claim: it may have written the invoice and
    // never stored the answer. Then that invoice is the answer (the key's 24 h, as @pay/http's).
    const made = await selectCreatedByKey(deps.db, owner, spec.api, spec.idempotency.key, new Date(now.getTime() - IDEMPOTENCY_TTL_MS));
    if (made) return made;
  }
  const row = await newInvoiceRow(deps, owner, spec, now);
  for (let attempt = 1; attempt <= NUMBER_ATTEMPTS; attempt++) {
    const created = await insertInvoice(deps.db, { ...row, invoice_number: readableNumber('INV', now) });
    if (created) return created;
    // Nothing written: the currency is not enabled (checked by the insert itself), or the number was taken.
    await assertCurrencyEnabled(deps.db, owner.merchantId, spec.currency);
    deps.logger.warn({ invoiceId: row.id, attempt }, 'invoice number collision; drawing another');
  }
  throw new Error(`no free invoice number after ${NUMBER_ATTEMPTS} draws`);
}

/** POST /api/v2/invoices: rubles, `expiresInHours` (default 1). */
export function createInvoice(deps: InvoicesDeps, owner: Owner, input: CreateInvoiceInput, idempotency?: IdempotentRun): Promise<CreatedInvoiceRow> {
  const now = deps.clock.now();
  return openInvoice(deps, owner, {
    api: 'v2',
    amount: parseMoney(input.amount, { decimals: FIAT_DECIMALS }),
    currency: 'RUB',
    method: input.paymentMethod ?? 'sbp',
    description: input.description ?? null,
    expiresAt: new Date(now.getTime() + Math.round((input.expiresInHours ?? EXPIRES_IN_HOURS.default) * HOUR_MS)),
    metadata: input.metadata ?? null,
    customerEmail: input.customerEmail,
    customerName: input.customerName,
    customerPhone: input.customerPhone,
    kycRequired: input.kycRequired,
    receiptRequired: input.receiptRequired,
    idempotency,
  });
}

export async function getInvoice(deps: InvoicesDeps, owner: Owner, id: string): Promise<InvoiceWithCustomer> {
  const invoice = await selectInvoice(deps.db, owner, id);
  if (!invoice) throw new ApiError('NOT_FOUND', `Invoice ${id} not found`);
  const [shown] = await withQrCodes(deps.db, [invoice]);
  return shown!;
}

/** The list query as GET /api/v2/invoices takes it (days as `YYYY-MM-DD`). */
export interface ListQuery {
  limit: number;
  offset: number;
  status?: InvoiceStatus;
  paymentMethod?: PaymentMethod;
  createdFrom?: string;
  createdTo?: string;
  search?: string;
}

const DAY_MS = 86_400_000;

/** The filter of a list query: whole UTC days, `createdTo` included. */
function invoiceFilterOf(q: Omit<ListQuery, 'limit' | 'offset'>): InvoiceFilter {
  const from = q.createdFrom === undefined ? undefined : parseDay(q.createdFrom, 'createdFrom');
  const to = q.createdTo === undefined ? undefined : parseDay(q.createdTo, 'createdTo');
  if (from && to && from > to) throw new ApiError('VALIDATION_ERROR', 'createdFrom must not be after createdTo', [{ field: 'createdFrom', message: 'must be on or before createdTo' }]);
  return {
    status: q.status,
    method: q.paymentMethod,
    createdFrom: from,
    createdBefore: to && new Date(to.getTime() + DAY_MS),
    search: q.search?.trim() || undefined,
  };
}

/** GET /api/v2/invoices (and the console's payments, which call this): newest first. */
export async function listInvoices(deps: InvoicesDeps, owner: Owner, q: ListQuery) {
  const page = await selectInvoices(deps.db, owner, { limit: q.limit, offset: q.offset, ...invoiceFilterOf(q) });
  return { ...page, rows: await withQrCodes(deps.db, page.rows) };
}

/** An invoice by id alone, with its customer, for the hosted payment page (its id is the page's capability); null when there is none. */
export async function invoiceForPayPage(deps: Pick<InvoicingDeps, 'db'>, id: string): Promise<InvoiceWithCustomer | null> {
  const invoice = await selectInvoiceById(deps.db, id);
  return invoice && (await withQrCodes(deps.db, [invoice]))[0]!;
}
