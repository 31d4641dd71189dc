import { createHmac } from 'node:crypto';

/**
 * `X-SVC-Signature`: lower-case hex HMAC-SHA256(secret, timestamp + raw body), the timestamp
 * being the `X-SVC-Timestamp` value (Unix ms) as sent.
 */
export function webhookSignature(secret: string, timestamp: string, body: string): string {
  return createHmac('sha256', secret).update(timestamp + body).digest('hex');
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
