/**
 * Webhooks signed as the platform signs them, for a merchant's tests of its own receiver (what
 * stripe-node's `webhooks.generateTestHeaderString` is for): `X-SVC-Signature` is the hex
 * HMAC-SHA256 of `X-SVC-Timestamp` (Unix ms) followed by the raw body, under the endpoint's
 * secret; `X-SVC-Delivery` names the delivery. During a rotated secret's overlap the platform
 * signs with both: `X-SVC-Signature` stays the previous secret's, and `X-SVC-Signatures` lists
 * `v1,<new> v1,<previous>` (`previousSecret` makes the same). @pay/webhook-receiver's verifyWebhook accepts
 * them (src/webhooks.test.ts). The SDK never receives webhooks itself.
 */
import { createHmac, randomUUID } from 'node:crypto';

export interface TestHeaderOptions {
  /** Unix ms the delivery claims to be sent at (default now): an old one tests your receiver's 5-minute window. */
  timestamp?: number;
  /** The delivery id (default a random UUID): the same on a retry, so a receiver deduplicates on it. */
  deliveryId?: string;
  /** The secret a rotation replaced, while its overlap lasts: the delivery is then signed by both, as the platform signs it. */
  previousSecret?: string;
}

/** The three headers of a signed delivery, named as the platform sends them (a type literal, so it passes where a header record is taken). */
export type WebhookTestHeaders = {
  'X-SVC-Signature': string;
  /** Only during a rotation's overlap (`previousSecret`): `v1,<hex>` entries, the new secret's first. */
  'X-SVC-Signatures'?: string;
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
    if (options.previousSecret !== undefined && (typeof options.previousSecret !== 'string' || options.previousSecret === '')) {
      throw new TypeError('generateTestHeader: previousSecret, when given, is the secret the rotation replaced');
    }
    const body = typeof payload === 'string' || payload instanceof Uint8Array ? payload : JSON.stringify(payload);
    const sign = (key: string) => createHmac('sha256', key).update(String(timestamp)).update(body).digest('hex');
    const current = sign(secret);
    const previous = options.previousSecret === undefined ? undefined : sign(options.previousSecret);
    return {
      'X-SVC-Signature': previous ?? current,
      ...(previous === undefined ? {} : { 'X-SVC-Signatures': `v1,${current} v1,${previous}` }),
      'X-SVC-Timestamp': String(timestamp),
      'X-SVC-Delivery': options.deliveryId ?? randomUUID(),
    };
  },
};
