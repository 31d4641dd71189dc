/**
 * `webhooks.generateTestHeader`: the headers it makes are what @pay/webhook-receiver (the
 * platform's receiver library, as a merchant installs it) accepts, and what the platform's own
 * signer (@pay/webhooks) sends for the same body, timestamp and secret.
 */
import { webhookHeaders } from '@pay/webhooks';
import { verifyWebhook, WebhookVerificationError } from '../../webhook-receiver/src/index';
import { PayClient, webhooks } from './index';

const SECRET = 'whsec_test_secret_of_the_endpoint';
const event = { event: 'invoice.paid', livemode: true, invoice: { id: 'inv-1', status: 'PAID' } };

it('makes headers @pay/webhook-receiver verifies, for a string, bytes or an object body', () => {
  const body = JSON.stringify(event);
  for (const payload of [body, new TextEncoder().encode(body), event]) {
    const headers = new PayClient({}).webhooks.generateTestHeader(payload, SECRET, { deliveryId: 'dlv-1' });
    const verified = verifyWebhook(body, headers, SECRET);
    expect(verified).toEqual({ event, deliveryId: 'dlv-1', timestamp: Number(headers['X-SVC-Timestamp']) });
  }
  const random = webhooks.generateTestHeader(body, SECRET);
  expect(random['X-SVC-Delivery']).toMatch(/^[0-9a-f-]{36}$/);
});

it('signs as the platform signs the same delivery', () => {
  const body = JSON.stringify(event);
  const now = 1_764_000_000_123;
  const ours = webhooks.generateTestHeader(body, SECRET, { timestamp: now, deliveryId: 'dlv-2' });
  const platform = webhookHeaders({ secret: SECRET, body, deliveryId: 'dlv-2', event: event.event, timestamp: now });
  expect(ours).toMatchObject({ 'X-SVC-Signature': platform['X-SVC-Signature'], 'X-SVC-Timestamp': platform['X-SVC-Timestamp'], 'X-SVC-Delivery': 'dlv-2' });
});

it("lets a merchant test its receiver's refusals: another secret, an old timestamp", () => {
  const body = JSON.stringify(event);
  const refusal = (f: () => unknown) => {
    try {
      f();
    } catch (err) {
      return err instanceof WebhookVerificationError ? err.code : err;
    }
    return 'accepted';
  };
  expect(refusal(() => verifyWebhook(body, webhooks.generateTestHeader(body, 'whsec_other'), SECRET))).toBe('INVALID_SIGNATURE');
  expect(refusal(() => verifyWebhook(body, webhooks.generateTestHeader(body, SECRET, { timestamp: Date.now() - 10 * 60_000 }), SECRET))).toBe('TIMESTAMP_OUT_OF_WINDOW');
  expect(() => webhooks.generateTestHeader(body, '')).toThrow('generateTestHeader: give the webhook secret');
});

it('signs with both secrets during a rotation overlap, as the platform does: the previous in X-SVC-Signature, both in X-SVC-Signatures', () => {
  const body = JSON.stringify(event);
  const now = 1_764_000_000_456;
  const ours = webhooks.generateTestHeader(body, 'whsec_new', { previousSecret: SECRET, timestamp: now, deliveryId: 'dlv-3' });
  const sign = (key: string) => webhooks.generateTestHeader(body, key, { timestamp: now, deliveryId: 'dlv-3' })['X-SVC-Signature'];
  expect(ours).toEqual({ 'X-SVC-Signature': sign(SECRET), 'X-SVC-Signatures': `v1,${sign('whsec_new')} v1,${sign(SECRET)}`, 'X-SVC-Timestamp': String(now), 'X-SVC-Delivery': 'dlv-3' });
  // A receiver still holding the previous secret verifies it unchanged.
  expect(verifyWebhook(body, ours, SECRET, { now }).deliveryId).toBe('dlv-3');
  expect(() => webhooks.generateTestHeader(body, 'whsec_new', { previousSecret: '' })).toThrow('previousSecret');
});
