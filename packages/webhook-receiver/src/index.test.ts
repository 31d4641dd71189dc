import express from 'express';
import request from 'supertest';
import { webhookHeaders } from '@pay/webhooks';
import { verifyWebhook, WebhookVerificationError } from './index';

const secret = 'whsec_test';
const body = JSON.stringify({ event: 'invoice.paid', timestamp: 1, livemode: true, invoice: { id: 'i1', amount: 10.5 } });
const now = 1_800_000_000_000;
const headers = (over: Record<string, string> = {}, b = body, s = secret, at = now) => ({
  ...webhookHeaders({ secret: s, deliveryId: 'd-1', event: 'invoice.paid', timestamp: at, body: b }),
  ...over,
});
const code = (f: () => unknown) => {
  try {
    f();
  } catch (err) {
    return (err as WebhookVerificationError).code;
  }
  return 'none';
};

describe('verifyWebhook', () => {
  it('returns the typed event and the delivery id for a request as the platform sends it', () => {
    const v = verifyWebhook(Buffer.from(body), headers(), secret, { now });
    expect(v).toEqual({ deliveryId: 'd-1', timestamp: now, event: JSON.parse(body) });
    if (v.event.event === 'invoice.paid') expect(v.event.invoice.amount).toBe(10.5);
    // Header names in any case, string body, Fetch Headers.
    const lower = Object.fromEntries(Object.entries(headers()).map(([k, x]) => [k.toLowerCase(), x]));
    expect(verifyWebhook(body, lower, secret, { now }).deliveryId).toBe('d-1');
    expect(verifyWebhook(body, new Headers(headers()), secret, { now }).deliveryId).toBe('d-1');
  });

  it('refuses a changed body, another secret, a changed timestamp and a malformed signature', () => {
    expect(code(() => verifyWebhook(body.replace('10.5', '1050'), headers(), secret, { now }))).toBe('INVALID_SIGNATURE');
    expect(code(() => verifyWebhook(body, headers(), 'whsec_old', { now }))).toBe('INVALID_SIGNATURE');
    expect(code(() => verifyWebhook(body, headers({ 'X-SVC-Timestamp': String(now + 1) }), secret, { now }))).toBe('INVALID_SIGNATURE');
    expect(code(() => verifyWebhook(body, headers({ 'X-SVC-Signature': 'ABC' }), secret, { now }))).toBe('INVALID_SIGNATURE');
  });

  it('refuses timestamps more than 5 minutes away, and missing headers', () => {
    expect(code(() => verifyWebhook(body, headers({}, body, secret, now - 301_000), secret, { now }))).toBe('TIMESTAMP_OUT_OF_WINDOW');
    expect(code(() => verifyWebhook(body, headers({}, body, secret, now + 301_000), secret, { now }))).toBe('TIMESTAMP_OUT_OF_WINDOW');
    expect(verifyWebhook(body, headers({}, body, secret, now - 299_000), secret, { now }).timestamp).toBe(now - 299_000);
    const { 'X-SVC-Delivery': _d, ...noDelivery } = headers();
    expect(code(() => verifyWebhook(body, noDelivery, secret, { now }))).toBe('MISSING_HEADER');
    expect(code(() => verifyWebhook(JSON.parse(body), headers(), secret, { now }))).toBe('INVALID_BODY');
  });

  it('refuses a genuine, correctly signed test-mode event (or one that does not say livemode) unless told to accept test events', () => {
    const test = JSON.stringify({ event: 'invoice.paid', timestamp: 1, livemode: false, invoice: { id: 'i1', amount: 10.5 } });
    const unsaid = JSON.stringify({ event: 'invoice.paid', timestamp: 1, invoice: { id: 'i1', amount: 10.5 } });
    const quoted = JSON.stringify({ event: 'invoice.paid', timestamp: 1, livemode: 'true', invoice: { id: 'i1', amount: 10.5 } });
    for (const b of [test, unsaid, quoted]) {
      expect(code(() => verifyWebhook(b, headers({}, b), secret, { now }))).toBe('TEST_MODE_EVENT');
      expect(code(() => verifyWebhook(b, headers({}, b), secret, { now, acceptTestEvents: false }))).toBe('TEST_MODE_EVENT');
    }
    expect(verifyWebhook(test, headers({}, test), secret, { now, acceptTestEvents: true }).event).toEqual(JSON.parse(test));
    // The signature is checked first: a forged body is INVALID_SIGNATURE whatever it says of its mode.
    expect(code(() => verifyWebhook(test, headers({}, body), secret, { now, acceptTestEvents: true }))).toBe('INVALID_SIGNATURE');
  });

  it('during a rotated secret’s overlap, accepts a receiver holding the old secret, the new one, or both; refuses any other', () => {
    const overlap = webhookHeaders({ secret: 'whsec_new', previousSecret: 'whsec_old', deliveryId: 'd-1', event: 'invoice.paid', timestamp: now, body });
    // A receiver that checks one signature today keeps the old secret working: X-SVC-Signature is still one hex signature, the old one's.
    expect(overlap['X-SVC-Signature']).toMatch(/^[0-9a-f]{64}$/);
    expect(overlap['X-SVC-Signatures']).toMatch(/^v1,[0-9a-f]{64} v1,[0-9a-f]{64}$/);
    expect(overlap['X-SVC-Signatures']!.endsWith(overlap['X-SVC-Signature']!)).toBe(true);
    for (const s of ['whsec_old', 'whsec_new', ['whsec_new', 'whsec_old'], ['whsec_other', 'whsec_new']]) {
      expect(verifyWebhook(body, overlap, s, { now }).deliveryId).toBe('d-1');
    }
    expect(code(() => verifyWebhook(body, overlap, 'whsec_other', { now }))).toBe('INVALID_SIGNATURE');
    // After the overlap only the new secret signs: a receiver still on the old one is refused.
    const after = webhookHeaders({ secret: 'whsec_new', deliveryId: 'd-1', event: 'invoice.paid', timestamp: now, body });
    expect(after['X-SVC-Signatures']).toBeUndefined();
    expect(code(() => verifyWebhook(body, after, 'whsec_old', { now }))).toBe('INVALID_SIGNATURE');
    expect(verifyWebhook(body, after, ['whsec_old', 'whsec_new'], { now }).deliveryId).toBe('d-1');
    // A listed entry of another scheme, or a forged list, proves nothing.
    expect(code(() => verifyWebhook(body, { ...after, 'X-SVC-Signatures': `v2,${'0'.repeat(64)} v1,zz` }, 'whsec_old', { now }))).toBe('INVALID_SIGNATURE');
    expect(() => verifyWebhook(body, overlap, [], { now })).toThrow(/secret is missing/);
  });

  it('takes any Uint8Array body, and says a missing secret is a set-up error, not a bad request', () => {
    expect(verifyWebhook(new TextEncoder().encode(body), headers(), secret, { now }).deliveryId).toBe('d-1');
    expect(() => verifyWebhook(body, headers(), undefined as unknown as string, { now })).toThrow(TypeError);
    expect(() => verifyWebhook(body, headers(), '', { now })).toThrow(/secret is missing/);
  });

  it('refuses, as INVALID_BODY, a body already parsed by express.json (the README example uses express.raw)', async () => {
    const app = express();
    app.post('/webhooks', express.json(), (req, res) => {
      try {
        res.json({ received: verifyWebhook(req.body, req.headers, secret).event.event });
      } catch (err) {
        if (err instanceof WebhookVerificationError) return void res.status(400).json({ error: err.code });
        throw err;
      }
    });
    const h = headers({}, body, secret, Date.now());
    const parsed = await request(app).post('/webhooks').set(h).send(body);
    expect(parsed.status).toBe(400);
    expect(parsed.body).toEqual({ error: 'INVALID_BODY' });
  });
});
