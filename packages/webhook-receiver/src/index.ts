import { createHmac, timingSafeEqual } from 'node:crypto';

/** Receivers should refuse events whose timestamp is further than this from their clock (spec part 6). */
export const WEBHOOK_TOLERANCE_MS: number = 5 * 60 * 1000;

/*
 * The event bodies are typed from the platform's own description of them: each service's
 * OpenAPI document (docs/openapi/*.json, its `webhooks` section, which the service builds from
 * its event catalogue) is turned into ./generated/events.ts by generate.mjs, one interface per
 * kind (`InvoicePaidEvent`, `WithdrawalFailedEvent`, ...) and one union per service
 * (`InvoicingWebhookEvent`, `CryptoWebhookEvent`). src/events.test.ts checks the types against
 * the documents' schemas. Timestamps are ISO 8601 UTC strings; amounts are JSON numbers.
 */
export * from './generated/events';
import type {
  CryptoInvoicePaidEvent,
  CryptoWebhookEvent,
  EndpointDisabledEvent,
  InvoicePaymentFailedEvent,
  InvoicePaymentReviewEvent,
  InvoiceRefundedEvent,
  InvoicingWebhookEvent,
  TransactionConfirmedEvent,
  WithdrawalCompletedEvent,
} from './generated/events';

// --- Console webhooks (invoicing): signed with the endpoint's `whsec_…` secret -------------

type InvoiceEvents = Extract<InvoicingWebhookEvent, { invoice: unknown }>;
export type WebhookInvoiceStatus = InvoiceEvents['invoice']['status'];
/** The invoice of `invoice.*` console events; amounts in `currency`'s main unit (rubles, dollars), not kopecks or cents. */
export type WebhookInvoice<S extends WebhookInvoiceStatus = WebhookInvoiceStatus> = Extract<InvoiceEvents['invoice'], { status: S }>;
/** The refund of `invoice.refunded`: this refund's record as the refunds API answers it, settled. */
export type WebhookRefund = InvoiceRefundedEvent['refund'];
/** The declined acquirer payment of `invoice.payment_failed`. */
export type WebhookPaymentAttempt = InvoicePaymentFailedEvent['attempt'];
/** The review of `invoice.payment_review`: money the invoice did not simply take, awaiting the merchant's decision. */
export type WebhookPaymentReview = InvoicePaymentReviewEvent['review'];

/** The webhook of `endpoint.disabled`: disabled after 3 days of failures, or by its merchant. */
export type WebhookDisabledEndpoint = EndpointDisabledEvent['endpoint'];

type KycSessions = Extract<InvoicingWebhookEvent, { session: unknown }>['session'];
export type WebhookKycStatus = Extract<KycSessions, { sessionId: string }>['status'];
/** A KYC session (v2 API) in `kyc.*` events. */
export type WebhookKycSession<S extends WebhookKycStatus = WebhookKycStatus> = Extract<KycSessions, { sessionId: string; status: S }>;
export type WebhookKycStatusV1 = Exclude<KycSessions, { sessionId: string }>['status'];
/** A v1 KYC session (POST /api/v1/kyc/sessions) in `kyc.*` events sent to the session's webhookUrl. */
export type WebhookKycSessionV1<S extends WebhookKycStatusV1 = WebhookKycStatusV1> = Extract<Exclude<KycSessions, { sessionId: string }>, { status: S }>;

// --- Crypto events: sent to the merchant's webhookUrl, signed with the `hs_…` HMAC secret ----

/** A crypto invoice, as GET /api/v1/invoices/:id answers it. */
export type CryptoInvoice = CryptoInvoicePaidEvent['invoice'];
/** An incoming transfer, as GET /api/v1/transactions/:id answers it. */
export type CryptoTransaction = TransactionConfirmedEvent['transaction'];
/** A withdrawal, as GET /api/v1/withdrawals/:id answers it. */
export type CryptoWithdrawal = WithdrawalCompletedEvent['withdrawal'];
export type CryptoCurrency = CryptoInvoice['currency'];
export type CryptoNetwork = CryptoInvoice['network'];

/**
 * Every event the platform sends. `invoice.paid` is both a console event (`WebhookInvoice`,
 * with `invoiceNumber`) and a crypto event (`CryptoInvoice`, with `network`): narrow on
 * `event.source` (`'invoicing'` or `'crypto'`, in every body), or with
 * `verifyWebhook<InvoicingWebhookEvent>` / `<CryptoWebhookEvent>` on a route that receives one
 * family only.
 */
export type WebhookEvent = InvoicingWebhookEvent | CryptoWebhookEvent;

/** The event(s) of one kind, e.g. `WebhookEventOf<'withdrawal.failed'>`. */
export type WebhookEventOf<K extends WebhookEvent['event'], E extends WebhookEvent = WebhookEvent> = Extract<E, { event: K }>;

// --- Verification --------------------------------------------------------------------------

export type WebhookVerificationCode = 'MISSING_HEADER' | 'INVALID_SIGNATURE' | 'TIMESTAMP_OUT_OF_WINDOW' | 'INVALID_BODY' | 'TEST_MODE_EVENT';

export class WebhookVerificationError extends Error {
  constructor(
    readonly code: WebhookVerificationCode,
    message: string,
  ) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

export interface VerifiedWebhook<E extends WebhookEvent = WebhookEvent> {
  event: E;
  /** `X-SVC-Delivery`: the same on every retry; deduplicate on it (delivery is at least once). */
  deliveryId: string;
  /** `X-SVC-Timestamp`, Unix ms. */
  timestamp: number;
}

/** Node's `req.headers` (any case), or Fetch `Headers`. */
export type WebhookHeaders = { get(name: string): string | null } | Record<string, string | string[] | undefined>;

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof headers.get === 'function') return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  const bag = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(bag).find((k) => k.toLowerCase() === name.toLowerCase());
  const value = key === undefined ? undefined : bag[key];
  return Array.isArray(value) ? value[0] : value;
}

export interface VerifyWebhookOptions {
  /** Default WEBHOOK_TOLERANCE_MS (5 minutes). */
  toleranceMs?: number;
  /** Unix ms, default `Date.now()` (for tests). */
  now?: number;
  /**
   * Default false: an event whose `livemode` is not `true` (a test key's, the sandbox's) is
   * refused with TEST_MODE_EVENT, so test money is never taken for real money. Set it on the
   * endpoint of a test or staging deployment that is meant to receive test events.
   */
  acceptTestEvents?: boolean;
}

/** `X-SVC-Signatures` during a secret's overlap: space-separated `v1,<hex>` entries, one per secret that signed. */
function listedSignatures(value: string | undefined): string[] {
  if (!value) return [];
  return value
    .split(' ')
    .filter((entry) => entry.startsWith('v1,'))
    .map((entry) => entry.slice(3));
}

/**
 * Verifies a webhook before anything is done with it: a signature of the request (the hex
 * `X-SVC-Signature`, or, while a rotated secret's overlap lasts, any `v1,<hex>` entry of
 * `X-SVC-Signatures`) must be the HMAC-SHA256 of `X-SVC-Timestamp` + the raw body under your
 * webhook secret (or any of `secret`, when you pass the old and the new one while you move),
 * compared in constant time; the timestamp within 5 minutes of `now`; and the event live unless
 * `acceptTestEvents`. Pass the body exactly as received (a Buffer, Uint8Array or string),
 * never a re-serialised object. Throws WebhookVerificationError; returns the typed event and
 * the delivery id.
 *
 * The type parameter narrows the event type on a route that receives one family only; it is
 * not checked at run time (the signature is what proves the body is ours).
 */
export function verifyWebhook<E extends WebhookEvent = WebhookEvent>(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string | readonly string[],
  opts: VerifyWebhookOptions = {},
): VerifiedWebhook<E> {
  const secrets = typeof secret === 'string' ? [secret] : Array.isArray(secret) ? secret : [];
  if (secrets.length === 0 || secrets.some((s) => typeof s !== 'string' || s === '')) throw new TypeError('verifyWebhook: the webhook secret is missing');
  const signature = header(headers, 'x-svc-signature');
  const timestampText = header(headers, 'x-svc-timestamp');
  const deliveryId = header(headers, 'x-svc-delivery');
  const missing = [!signature && 'X-SVC-Signature', !timestampText && 'X-SVC-Timestamp', !deliveryId && 'X-SVC-Delivery'].filter(Boolean);
  if (missing.length > 0) throw new WebhookVerificationError('MISSING_HEADER', `Missing ${missing.join(', ')}`);
  if (typeof rawBody !== 'string' && !(rawBody instanceof Uint8Array)) {
    throw new WebhookVerificationError('INVALID_BODY', 'Pass the raw body (Buffer or string), e.g. express.raw({ type: "application/json" }), not a parsed object');
  }
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody;
  const given = [signature!, ...listedSignatures(header(headers, 'x-svc-signatures'))]
    .filter((s) => /^[0-9a-f]{64}$/.test(s))
    .map((s) => Buffer.from(s, 'hex'));
  // Every comparison is made (no early exit), each in constant time.
  let matched = false;
  for (const key of secrets) {
    const expected = createHmac('sha256', key).update(timestampText!).update(body).digest();
    for (const g of given) if (g.length === expected.length && timingSafeEqual(g, expected)) matched = true;
  }
  if (!matched) {
    throw new WebhookVerificationError('INVALID_SIGNATURE', 'No signature of X-SVC-Signature or X-SVC-Signatures matches: wrong secret (rotated, overlap over?) or the body was changed');
  }
  const timestamp = Number(timestampText);
  const now = opts.now ?? Date.now();
  if (!Number.isSafeInteger(timestamp) || Math.abs(now - timestamp) > (opts.toleranceMs ?? WEBHOOK_TOLERANCE_MS)) {
    throw new WebhookVerificationError('TIMESTAMP_OUT_OF_WINDOW', 'X-SVC-Timestamp is more than 5 minutes from this clock: refused as a possible replay');
  }
  let event: E;
  try {
    event = JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8')) as E;
  } catch {
    throw new WebhookVerificationError('INVALID_BODY', 'The body is not JSON');
  }
  if (!event || typeof event !== 'object' || typeof event.event !== 'string') throw new WebhookVerificationError('INVALID_BODY', 'The body is not an event');
  // Anything but an explicit `true` is not live: a body without `livemode` is not trusted as live either.
  if (event.livemode !== true && !opts.acceptTestEvents) {
    throw new WebhookVerificationError('TEST_MODE_EVENT', 'A test-mode event (livemode is not true) at an endpoint that takes live events only: pass { acceptTestEvents: true } where test events are expected');
  }
  return { event, deliveryId: deliveryId!, timestamp };
}
