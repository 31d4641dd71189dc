import { createHmac, timingSafeEqual } from 'node:crypto';

/** Receivers should refuse events whose timestamp is further than this from their clock (spec part 6). */
export const WEBHOOK_TOLERANCE_MS: number = 5 * 60 * 1000;

/*
 * The event bodies, exactly as the platform's JSON Schemas describe them (the `webhooks`
 * section of each service's /openapi.json): packages/webhooks/src/payloads.ts for console
 * (invoicing) events, services/crypto/src/webhook-docs.ts for crypto events.
 * src/events.test.ts fails when these types and those schemas differ. Timestamps are
 * ISO 8601 UTC strings; amounts are JSON numbers.
 */

interface Envelope<E extends string> {
  event: E;
  /** Unix ms when the event happened. */
  timestamp: number;
  /**
   * false for an event of test mode (a test key, the sandbox), true for live mode. Every event
   * carries it; verifyWebhook refuses `false` unless `acceptTestEvents` is set.
   */
  livemode: boolean;
}

// --- Console webhooks (invoicing): signed with the endpoint's `whsec_…` secret -------------

export type WebhookInvoiceStatus = 'PENDING' | 'PAID' | 'EXPIRED' | 'CANCELLED';

/** The invoice of `invoice.*` console events; amounts in `currency`'s main unit (rubles, dollars), not kopecks or cents. */
export interface WebhookInvoice<S extends WebhookInvoiceStatus = WebhookInvoiceStatus> {
  id: string;
  /** `INV-<digits>-<suffix>` */
  invoiceNumber: string;
  amount: number;
  /** `RUB` for v2 invoices; a v1 or batch invoice's own. */
  currency: 'USD' | 'EUR' | 'RUB' | 'KZT';
  /** false for a test-mode invoice. */
  livemode: boolean;
  status: S;
  /** How it was paid once it is; before that, the method it was created for. */
  paymentMethod: 'sbp' | 'card';
  /** The payer's bank, once the payment reports it (SBP); null until then. */
  payerBank: string | null;
  /** Refunded so far, in `currency`. */
  refundedAmount: number;
  paidAt: S extends 'PAID' ? string : string | null;
  /** The object given at creation. */
  metadata: Record<string, unknown>;
  customerEmail: string | null;
  customerPhone: string | null;
}

/** The refund of `invoice.refunded`: this refund's record as the refunds API answers it, settled. */
export interface WebhookRefund {
  id: string;
  invoiceId: string;
  /** Refunded by this refund, in rubles. */
  amount: number;
  currency: string;
  status: 'SUCCEEDED';
  /** The merchant's reason, as given. */
  reason: string | null;
  failureReason: string | null;
  createdAt: string;
  settledAt: string;
}

/** The declined acquirer payment of `invoice.payment_failed`. */
export interface WebhookPaymentAttempt {
  /** 1 for the payment opened with the invoice; one more for each fresh payment after a decline. */
  attempt: number;
  method: 'sbp' | 'card';
  status: 'PENDING' | 'DECLINED' | 'CONFIRMED' | 'PARTIALLY_REFUNDED' | 'REFUNDED' | 'CLOSED';
  /** The acquirer's own status (REJECTED, AUTH_FAIL, ...). */
  acquirerStatus: string;
}

/** The review of `invoice.payment_review`: money the invoice did not simply take, awaiting the merchant's decision. */
export interface WebhookPaymentReview {
  id: string;
  reason: 'amount_mismatch' | 'paid_after_expiry' | 'paid_after_cancel' | 'duplicate_payment' | 'receipt_only' | 'receipt_missing' | 'invoice_refused';
  status: 'OPEN' | 'REFUNDING';
  /** Taken (receipt_only: what the receipt shows), in rubles. */
  amount: number;
  currency: string;
  takenAt: string;
  detail: string;
  createdAt: string;
}

export type WebhookKycStatus = 'APPROVED' | 'DECLINED' | 'IN_PROGRESS';

/** A KYC session (v2 API) in `kyc.*` events. */
export interface WebhookKycSession<S extends WebhookKycStatus = WebhookKycStatus> {
  id: string;
  sessionId: string;
  status: S;
  invoiceId: string | null;
  customerId: string | null;
  customerEmail: string | null;
  customerPhone: string | null;
  /** Why the session was declined or sent to review; null when passed. */
  reason?: string | null;
  updatedAt: string;
}

export type WebhookKycStatusV1 = 'completed' | 'failed' | 'in_progress';

/** A v1 KYC session (POST /api/v1/kyc/sessions) in `kyc.*` events sent to the session's webhookUrl. */
export interface WebhookKycSessionV1<S extends WebhookKycStatusV1 = WebhookKycStatusV1> {
  id: string;
  level: 'basic' | 'advanced';
  status: S;
  metadata: Record<string, unknown>;
  reason: string | null;
  updatedAt: string;
}

export interface InvoicePaidEvent extends Envelope<'invoice.paid'> {
  invoice: WebhookInvoice<'PAID'>;
}
export interface InvoiceExpiredEvent extends Envelope<'invoice.expired'> {
  invoice: WebhookInvoice<'EXPIRED'>;
}
export interface InvoiceCancelledEvent extends Envelope<'invoice.cancelled'> {
  invoice: WebhookInvoice<'CANCELLED'>;
}
export interface InvoiceRefundedEvent extends Envelope<'invoice.refunded'> {
  invoice: WebhookInvoice<'PAID'>;
  refund: WebhookRefund;
}
export interface InvoicePaymentFailedEvent extends Envelope<'invoice.payment_failed'> {
  invoice: WebhookInvoice<'PENDING'>;
  attempt: WebhookPaymentAttempt;
}
export interface InvoicePaymentReviewEvent extends Envelope<'invoice.payment_review'> {
  invoice: WebhookInvoice;
  review: WebhookPaymentReview;
}
export interface KycPassedEvent extends Envelope<'kyc.passed'> {
  session: WebhookKycSession<'APPROVED'> | WebhookKycSessionV1<'completed'>;
}
export interface KycRejectedEvent extends Envelope<'kyc.rejected'> {
  session: WebhookKycSession<'DECLINED'> | WebhookKycSessionV1<'failed'>;
}
export interface KycManualReviewEvent extends Envelope<'kyc.manual_review'> {
  session: WebhookKycSession<'IN_PROGRESS'> | WebhookKycSessionV1<'in_progress'>;
}

/** Console webhook events (and v1 KYC session results). */
export type InvoicingWebhookEvent =
  | InvoicePaidEvent
  | InvoiceExpiredEvent
  | InvoiceCancelledEvent
  | InvoiceRefundedEvent
  | InvoicePaymentFailedEvent
  | InvoicePaymentReviewEvent
  | KycPassedEvent
  | KycRejectedEvent
  | KycManualReviewEvent;

// --- Crypto events: sent to the merchant's webhookUrl, signed with the `hs_…` HMAC secret ----

export type CryptoCurrency = 'USDT_TRC20' | 'USDT_ERC20' | 'USDC_ERC20' | 'USDT_BEP20' | 'USDC_BEP20';
export type CryptoNetwork = 'Tron' | 'Ethereum' | 'BSC';

/** A crypto invoice, as GET /api/v1/invoices/:id answers it. */
export interface CryptoInvoice {
  id: string;
  amount: number;
  currency: CryptoCurrency;
  network: CryptoNetwork;
  /** Deposit address of this invoice alone. */
  address: string;
  status: 'Pending' | 'PartiallyPaid' | 'Paid' | 'Underpaid' | 'Expired';
  expiresAt: string;
  paymentUrl: string;
  description: string | null;
  amountReceived: number;
  paidAt: string | null;
  createdAt: string;
}

/** An incoming transfer, as GET /api/v1/transactions/:id answers it. */
export interface CryptoTransaction {
  id: string;
  invoiceId: string;
  txHash: string;
  fromAddress: string;
  toAddress: string;
  amount: number;
  currency: CryptoCurrency;
  network: CryptoNetwork;
  status: 'Pending' | 'Confirmed' | 'Failed';
  confirmations: number;
  requiredConfirmations: number;
  createdAt: string;
  confirmedAt: string | null;
  blockNumber: number | null;
}

/** A withdrawal, as GET /api/v1/withdrawals/:id answers it. */
export interface CryptoWithdrawal {
  id: string;
  /** `WD-<8 digits>-<suffix>` */
  withdrawalNumber: string;
  toAddress: string;
  amount: number;
  fee: number;
  netAmount: number;
  currency: CryptoCurrency;
  network: CryptoNetwork;
  status: 'Pending' | 'Processing' | 'Completed' | 'Failed';
  createdAt: string;
  txHash: string | null;
  confirmations: number;
  processedAt: string | null;
  completedAt: string | null;
  failureReason: string | null;
}

export interface CryptoInvoicePaidEvent extends Envelope<'invoice.paid'> {
  invoice: CryptoInvoice;
}
export interface TransactionConfirmedEvent extends Envelope<'transaction.confirmed'> {
  transaction: CryptoTransaction;
}
export interface WithdrawalCompletedEvent extends Envelope<'withdrawal.completed'> {
  withdrawal: CryptoWithdrawal;
}
export interface WithdrawalFailedEvent extends Envelope<'withdrawal.failed'> {
  withdrawal: CryptoWithdrawal;
}

/** Crypto events. */
export type CryptoWebhookEvent = CryptoInvoicePaidEvent | TransactionConfirmedEvent | WithdrawalCompletedEvent | WithdrawalFailedEvent;

/**
 * Every event the platform sends. `invoice.paid` is both a console event (`WebhookInvoice`,
 * with `invoiceNumber`) and a crypto event (`CryptoInvoice`, with `network`): narrow with
 * `verifyWebhook<InvoicingWebhookEvent>` / `<CryptoWebhookEvent>` on a route that receives
 * only one kind, or with `'network' in event.invoice`.
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

/**
 * Verifies a webhook before anything is done with it: `X-SVC-Signature` must be the hex
 * HMAC-SHA256 of `X-SVC-Timestamp` + the raw body under your webhook secret (compared in
 * constant time), the timestamp within 5 minutes of `now`, and the event live unless
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
  secret: string,
  opts: VerifyWebhookOptions = {},
): VerifiedWebhook<E> {
  if (typeof secret !== 'string' || secret === '') throw new TypeError('verifyWebhook: the webhook secret is missing');
  const signature = header(headers, 'x-svc-signature');
  const timestampText = header(headers, 'x-svc-timestamp');
  const deliveryId = header(headers, 'x-svc-delivery');
  const missing = [!signature && 'X-SVC-Signature', !timestampText && 'X-SVC-Timestamp', !deliveryId && 'X-SVC-Delivery'].filter(Boolean);
  if (missing.length > 0) throw new WebhookVerificationError('MISSING_HEADER', `Missing ${missing.join(', ')}`);
  if (typeof rawBody !== 'string' && !(rawBody instanceof Uint8Array)) {
    throw new WebhookVerificationError('INVALID_BODY', 'Pass the raw body (Buffer or string), e.g. express.raw({ type: "application/json" }), not a parsed object');
  }
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody;
  const expected = createHmac('sha256', secret).update(timestampText!).update(body).digest();
  const given = /^[0-9a-f]{64}$/.test(signature!) ? Buffer.from(signature!, 'hex') : Buffer.alloc(0);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new WebhookVerificationError('INVALID_SIGNATURE', 'X-SVC-Signature does not match: wrong secret (rotated?) or the body was changed');
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
