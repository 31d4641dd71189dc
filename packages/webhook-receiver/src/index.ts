import { createHmac, timingSafeEqual } from 'node:crypto';

/** Receivers should refuse events whose timestamp is further than this from their clock (spec part 6). */
export const WEBHOOK_TOLERANCE_MS = 5 * 60 * 1000;

/** The invoice object of invoice events, amounts in rubles. */
export interface WebhookInvoice {
  id: string;
  invoiceNumber: string;
  amount: number;
  status: 'PAID' | 'EXPIRED' | 'CANCELLED';
  paidAt: string | null;
  metadata: Record<string, unknown>;
  customerEmail: string | null;
  customerPhone: string | null;
}

export interface WebhookKycSession {
  id: string;
  sessionId: string;
  status: 'APPROVED' | 'DECLINED' | 'IN_PROGRESS';
  invoiceId: string | null;
  customerId: string | null;
  customerEmail: string | null;
  customerPhone: string | null;
  reason?: string | null;
  updatedAt: string;
}

interface Envelope<E extends string> {
  event: E;
  /** Unix ms when the event happened. */
  timestamp: number;
}

/** Every event the platform sends: invoicing events to console webhooks, crypto events to the merchant's webhookUrl. */
export type WebhookEvent =
  | (Envelope<'invoice.paid' | 'invoice.expired' | 'invoice.cancelled'> & { invoice: WebhookInvoice })
  | (Envelope<'invoice.refunded'> & { invoice: WebhookInvoice; refund: { id: string; amount: number; createdAt: string } })
  | (Envelope<'kyc.passed' | 'kyc.rejected' | 'kyc.manual_review'> & { session: WebhookKycSession })
  | (Envelope<'transaction.confirmed'> & { transaction: Record<string, unknown> })
  | (Envelope<'withdrawal.completed' | 'withdrawal.failed'> & { withdrawal: Record<string, unknown> });

export type WebhookVerificationCode = 'MISSING_HEADER' | 'INVALID_SIGNATURE' | 'TIMESTAMP_OUT_OF_WINDOW' | 'INVALID_BODY';

export class WebhookVerificationError extends Error {
  constructor(
    readonly code: WebhookVerificationCode,
    message: string,
  ) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

export interface VerifiedWebhook {
  event: WebhookEvent;
  /** `X-SVC-Delivery`: the same on every retry; deduplicate on it (delivery is at least once). */
  deliveryId: string;
  /** `X-SVC-Timestamp`, Unix ms. */
  timestamp: number;
}

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderBag, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const bag = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(bag).find((k) => k.toLowerCase() === name.toLowerCase());
  const value = key === undefined ? undefined : bag[key];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Verifies a webhook before anything is done with it: `X-SVC-Signature` must be the hex
 * HMAC-SHA256 of `X-SVC-Timestamp` + the raw body under your webhook secret (compared in
 * constant time), and the timestamp within 5 minutes of `now`. Pass the body exactly as
 * received (a Buffer or string), never a re-serialised object. Throws
 * WebhookVerificationError; returns the typed event and the delivery id.
 */
export function verifyWebhook(
  rawBody: string | Buffer,
  headers: HeaderBag,
  secret: string,
  opts: { toleranceMs?: number; now?: number } = {},
): VerifiedWebhook {
  const signature = header(headers, 'x-svc-signature');
  const timestampText = header(headers, 'x-svc-timestamp');
  const deliveryId = header(headers, 'x-svc-delivery');
  const missing = [!signature && 'X-SVC-Signature', !timestampText && 'X-SVC-Timestamp', !deliveryId && 'X-SVC-Delivery'].filter(Boolean);
  if (missing.length > 0) throw new WebhookVerificationError('MISSING_HEADER', `Missing ${missing.join(', ')}`);
  if (typeof rawBody !== 'string' && !Buffer.isBuffer(rawBody)) {
    throw new WebhookVerificationError('INVALID_BODY', 'Pass the raw body (Buffer or string), e.g. express.raw({ type: "application/json" })');
  }
  const body = Buffer.isBuffer(rawBody) ? rawBody : Buffer.from(rawBody, 'utf8');
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
  let event: WebhookEvent;
  try {
    event = JSON.parse(body.toString('utf8')) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError('INVALID_BODY', 'The body is not JSON');
  }
  if (!event || typeof event !== 'object' || typeof event.event !== 'string') throw new WebhookVerificationError('INVALID_BODY', 'The body is not an event');
  return { event, deliveryId: deliveryId!, timestamp };
}
