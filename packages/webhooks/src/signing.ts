import { createHmac } from 'node:crypto';
import { hmacKey } from '@pay/auth';

/**
 * `X-SVC-Signature`: lower-case hex HMAC-SHA256(secret, timestamp + raw body), the timestamp
 * being the `X-SVC-Timestamp` value (Unix ms) as sent.
 */
export function webhookSignature(secret: string, timestamp: string, body: string): string {
  // The secret's key made once (hmacKey): a string key costs a send more than its HMAC does.
  return createHmac('sha256', hmacKey(secret)).update(timestamp + body).digest('hex');
}

/** The longest overlap a rotation may ask for: the old secret signs for at most 7 days more. */
export const MAX_SECRET_OVERLAP_SECONDS = 7 * 24 * 60 * 60;

/**
 * The spec's headers. While a rotated secret's overlap lasts (`previousSecret`), two secrets
 * sign, and the request says so without breaking a receiver that checks one signature today:
 * - `X-SVC-Signature` stays one hex signature, the previous secret's: the secret such a
 *   receiver holds keeps verifying, unchanged, until the overlap ends;
 * - `X-SVC-Signatures` lists every signature as space-separated `v1,<hex>` entries, the new
 *   secret's first (Standard Webhooks' form, our hex): a receiver holding either secret finds
 *   its own (@pay/webhook-receiver accepts any match).
 * Outside an overlap the request carries exactly the spec's headers, as before.
 */
export function webhookHeaders(o: { secret: string; previousSecret?: string | null; deliveryId: string; event: string; timestamp: number; body: string }): Record<string, string> {
  const timestamp = String(o.timestamp);
  const current = webhookSignature(o.secret, timestamp, o.body);
  const previous = o.previousSecret ? webhookSignature(o.previousSecret, timestamp, o.body) : null;
  return {
    'Content-Type': 'application/json',
    'X-SVC-Event': o.event,
    'X-SVC-Signature': previous ?? current,
    ...(previous ? { 'X-SVC-Signatures': `v1,${current} v1,${previous}` } : {}),
    'X-SVC-Timestamp': timestamp,
    'X-SVC-Delivery': o.deliveryId,
  };
}
