/**
 * Webhooks signed as the platform signs them, for a merchant's tests of its own receiver (what
 * stripe-node's `webhooks.generateTestHeaderString` is for): `X-SVC-Signature` is the hex
 * HMAC-SHA256 of `X-SVC-Timestamp` (Unix ms) followed by the raw body, under the endpoint's
 * secret; `X-SVC-Delivery` names the delivery. @pay/webhook-receiver's verifyWebhook accepts
 * them (src/webhooks.test.ts). The SDK never receives webhooks itself.
 */
import { createHmac, randomUUID } from 'node:crypto';

export interface TestHeaderOptions {
  /** Unix ms the delivery claims to be sent at (default now): an old one tests your receiver's 5-minute window. */
  timestamp?: number;
  /** The delivery id (default a random UUID): the same on a retry, so a receiver deduplicates on it. */
  deliveryId?: string;
}

/** The three headers of a signed delivery, named as the platform sends them (a type literal, so it passes where a header record is taken). */
export type WebhookTestHeaders = {
  'X-SVC-Signature': string;
  'X-SVC-Timestamp': string;
  'X-SVC-Delivery': string;
};

export interface WebhookTestHelpers {
  /**
   * The headers the platform would send with `payload` (the exact body your receiver gets: pass
   * a string, or bytes; an object is serialised with JSON.stringify, and that text is the body),
   * signed with `secret` (the endpoint's `whsec_…`, or the merchant's HMAC secret for crypto events).
   */
  generateTestHeader(payload: string | Uint8Array | object, secret: string, options?: TestHeaderOptions): WebhookTestHeaders;
}

export const webhooks: WebhookTestHelpers = {
  generateTestHeader(payload, secret, options = {}) {
    if (typeof secret !== 'string' || secret === '') throw new TypeError('generateTestHeader: give the webhook secret the receiver verifies with');
    const timestamp = options.timestamp ?? Date.now();
    if (!Number.isSafeInteger(timestamp)) throw new TypeError(`generateTestHeader: timestamp must be Unix milliseconds, an integer (got ${String(timestamp)})`);
    const body = typeof payload === 'string' || payload instanceof Uint8Array ? payload : JSON.stringify(payload);
    const signature = createHmac('sha256', secret).update(String(timestamp)).update(body).digest('hex');
    return { 'X-SVC-Signature': signature, 'X-SVC-Timestamp': String(timestamp), 'X-SVC-Delivery': options.deliveryId ?? randomUUID() };
  },
};
