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

/** Exactly the headers of the spec, nothing else of ours. */
export function webhookHeaders(o: { secret: string; deliveryId: string; event: string; timestamp: number; body: string }): Record<string, string> {
  const timestamp = String(o.timestamp);
  return {
    'Content-Type': 'application/json',
    'X-SVC-Event': o.event,
    'X-SVC-Signature': webhookSignature(o.secret, timestamp, o.body),
    'X-SVC-Timestamp': timestamp,
    'X-SVC-Delivery': o.deliveryId,
  };
}
