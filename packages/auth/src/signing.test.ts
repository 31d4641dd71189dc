import { createHmac } from 'node:crypto';
import { ApiError } from '@pay/schemas';
import {
  assertTimestampInWindow,
  SIGNATURE_WINDOW_MS,
  SIGNING_STYLES,
  signedHeaders,
  signRequest,
  timestampFor,
  verifyRequestSignature,
  type SigningStyle,
} from './signing';

const SECRET = 'hs_test_vector_secret';
const BODY = '{"amount":100}';

// Expected values computed once in a shell, e.g.
//   printf '%s' '1700000000.POST./api/v1/withdrawals{"amount":100}' | openssl dgst -sha256 -hmac hs_test_vector_secret -binary | base64
const OPENSSL = {
  cryptoPost: '3Z6Mo9r+LKPMxs0FnLlH9d9ACE2+jQbZb6PzI4Xtnmk=',
  cryptoGet: 'llHodtpqE5iaBOOB0YSc0ekipeFGuTvRK/rw1+OLrr0=',
  v2Post: '93f5b319dcc4243f8dcfb54ca8131a3b0821546676a2d31909f0bf94be39fe8a',
  v2Get: '46caaf351d3d3566bfa76577b2719ddf0088cf10c0e176bb7e4ecc2cd715b133',
};

const hmac = (payload: string, encoding: 'base64' | 'hex') => createHmac('sha256', SECRET).update(payload).digest(encoding);

describe('SIGNING_STYLES', () => {
  it('describes the two documented conventions', () => {
    expect(SIGNING_STYLES.crypto).toEqual({
      timestampHeader: 'X-Timestamp',
      signatureHeader: 'X-Signature',
      timestampUnit: 'seconds',
      signatureEncoding: 'base64',
    });
    expect(SIGNING_STYLES.v2).toEqual({
      timestampHeader: 'x-timestamp',
      signatureHeader: 'x-signature',
      timestampUnit: 'milliseconds',
      signatureEncoding: 'hex',
    });
    expect(SIGNATURE_WINDOW_MS).toBe(300_000);
  });
});

describe('signRequest', () => {
  it('crypto style: Base64 HMAC-SHA256 of `{seconds}.{METHOD}.{path}{body}`', () => {
    const signature = signRequest('crypto', SECRET, { timestamp: 1700000000, method: 'POST', path: '/api/v1/withdrawals', body: BODY });
    expect(signature).toBe(hmac('1700000000.POST./api/v1/withdrawals{"amount":100}', 'base64'));
    expect(signature).toBe(OPENSSL.cryptoPost);
  });

  it('v2 style: lower-case hex HMAC-SHA256 of `{milliseconds}.{METHOD}.{path}{body}`', () => {
    const signature = signRequest('v2', SECRET, { timestamp: '1700000000000', method: 'POST', path: '/api/v1/withdrawals', body: BODY });
    expect(signature).toBe(hmac('1700000000000.POST./api/v1/withdrawals{"amount":100}', 'hex'));
    expect(signature).toBe(OPENSSL.v2Post);
  });

  it('signs an empty body as nothing after the path', () => {
    expect(signRequest('crypto', SECRET, { timestamp: 1700000000, method: 'GET', path: '/api/v1/balances' })).toBe(OPENSSL.cryptoGet);
    expect(signRequest('v2', SECRET, { timestamp: 1700000000000, method: 'GET', path: '/api/v1/balances', body: '' })).toBe(OPENSSL.v2Get);
    expect(OPENSSL.cryptoGet).toBe(hmac('1700000000.GET./api/v1/balances', 'base64'));
  });

  it('upper-cases the method, drops the query string and treats a Buffer body like its text', () => {
    const parts = { timestamp: 1700000000, path: '/api/v1/withdrawals?dryRun=true&x=1', method: 'post', body: Buffer.from(BODY) };
    expect(signRequest('crypto', SECRET, parts)).toBe(OPENSSL.cryptoPost);
  });

  it('signs body bytes as they are, even when they are not valid UTF-8', () => {
    const body = Buffer.from([0x7b, 0xff, 0xfe, 0x7d]);
    const expected = createHmac('sha256', SECRET)
      .update(Buffer.concat([Buffer.from('1700000000.POST./x'), body]))
      .digest('base64');
    expect(signRequest('crypto', SECRET, { timestamp: 1700000000, method: 'POST', path: '/x', body })).toBe(expected);
    expect(signRequest('crypto', SECRET, { timestamp: 1700000000, method: 'POST', path: '/x', body: body.toString('utf8') })).not.toBe(
      expected,
    );
  });
});

describe('verifyRequestSignature', () => {
  const cryptoParts = { timestamp: '1700000000', method: 'POST', path: '/api/v1/withdrawals', body: BODY };
  const v2Parts = { ...cryptoParts, timestamp: '1700000000000' };

  it('accepts the independently computed signatures', () => {
    expect(verifyRequestSignature('crypto', SECRET, cryptoParts, OPENSSL.cryptoPost)).toBe(true);
    expect(verifyRequestSignature('v2', SECRET, v2Parts, OPENSSL.v2Post)).toBe(true);
  });

  it.each([
    ['another secret', 'crypto', { ...cryptoParts }, 'hs_other', OPENSSL.cryptoPost],
    ['a changed body', 'crypto', { ...cryptoParts, body: '{"amount":1000}' }, SECRET, OPENSSL.cryptoPost],
    ['the same JSON re-spaced', 'crypto', { ...cryptoParts, body: '{"amount": 100}' }, SECRET, OPENSSL.cryptoPost],
    ['a changed path', 'crypto', { ...cryptoParts, path: '/api/v1/withdrawalz' }, SECRET, OPENSSL.cryptoPost],
    ['a changed method', 'crypto', { ...cryptoParts, method: 'PUT' }, SECRET, OPENSSL.cryptoPost],
    ['a changed timestamp', 'crypto', { ...cryptoParts, timestamp: '1700000001' }, SECRET, OPENSSL.cryptoPost],
    ['hex sent to the crypto style', 'crypto', cryptoParts, SECRET, hmac('1700000000.POST./api/v1/withdrawals{"amount":100}', 'hex')],
    ['Base64 sent to the v2 style', 'v2', v2Parts, SECRET, hmac('1700000000000.POST./api/v1/withdrawals{"amount":100}', 'base64')],
    ['upper-case hex', 'v2', v2Parts, SECRET, OPENSSL.v2Post.toUpperCase()],
    ['unpadded Base64', 'crypto', cryptoParts, SECRET, OPENSSL.cryptoPost.replace(/=+$/, '')],
    ['a truncated signature', 'v2', v2Parts, SECRET, OPENSSL.v2Post.slice(0, 63)],
    ['an empty signature', 'v2', v2Parts, SECRET, ''],
  ] as const)('refuses %s', (_label, style, parts, secret, signature) => {
    expect(verifyRequestSignature(style, secret, parts, signature)).toBe(false);
  });
});

describe('signedHeaders', () => {
  it('crypto style: X-Timestamp in whole seconds and a Base64 X-Signature', () => {
    const headers = signedHeaders('crypto', SECRET, { method: 'POST', path: '/api/v1/withdrawals', body: BODY, now: 1700000000999 });
    expect(headers).toEqual({ 'X-Timestamp': '1700000000', 'X-Signature': OPENSSL.cryptoPost });
  });

  it('v2 style: x-timestamp in milliseconds and a hex x-signature', () => {
    const headers = signedHeaders('v2', SECRET, { method: 'GET', path: '/api/v1/balances', now: 1700000000000 });
    expect(headers).toEqual({ 'x-timestamp': '1700000000000', 'x-signature': OPENSSL.v2Get });
  });

  it('defaults to the current time', () => {
    const before = Date.now();
    const headers = signedHeaders('v2', SECRET, { method: 'GET', path: '/' });
    const sent = Number(headers['x-timestamp']);
    expect(sent).toBeGreaterThanOrEqual(before);
    expect(sent).toBeLessThanOrEqual(Date.now());
  });
});

describe('timestampFor', () => {
  it('uses the style’s unit', () => {
    expect(timestampFor('crypto', 1700000000999)).toBe('1700000000');
    expect(timestampFor('v2', 1700000000999)).toBe('1700000000999');
  });
});

describe('assertTimestampInWindow', () => {
  const NOW = 1_700_000_000_000;

  function refusal(style: SigningStyle, raw: string): ApiError {
    try {
      assertTimestampInWindow(style, raw, NOW);
    } catch (err) {
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).code).toBe('TIMESTAMP_OUT_OF_WINDOW');
      return err as ApiError;
    }
    throw new Error(`${raw} was accepted`);
  }

  it.each([
    ['crypto', '1700000000'],
    ['crypto', '1699999700'],
    ['crypto', '1700000300'],
    ['v2', '1700000000000'],
    ['v2', '1699999700000'],
    ['v2', '1700000300000'],
  ] as const)('%s accepts %s (up to 300 s either way)', (style, raw) => {
    expect(() => assertTimestampInWindow(style, raw, NOW)).not.toThrow();
  });

  it.each([
    ['crypto', '1699999699', /seconds, within 300 s.*301 s old/],
    ['crypto', '1700000301', /seconds, within 300 s.*301 s in the future/],
    ['v2', '1699999699999', /milliseconds, within 300 s.*301 s old/],
    ['v2', '1700000300001', /milliseconds, within 300 s.*301 s in the future/],
  ] as const)('%s refuses %s as outside the window', (style, raw, message) => {
    expect(refusal(style, raw).message).toMatch(message);
  });

  it('measures a seconds timestamp in whole seconds, so 300 s old is in the window at any millisecond', () => {
    const late = NOW + 999; // 1700000000.999 s
    expect(() => assertTimestampInWindow('crypto', '1699999700', late)).not.toThrow();
    expect(() => assertTimestampInWindow('crypto', '1700000300', late)).not.toThrow();
    expect(() => assertTimestampInWindow('crypto', '1699999699', late)).toThrow(/301 s old/);
  });

  it('says so when milliseconds are sent where seconds are expected', () => {
    const { message } = refusal('crypto', '1700000000000');
    expect(message).toMatch(/^X-Timestamp must be an integer Unix time in seconds/);
    expect(message).toMatch(/looks like milliseconds/);
  });

  it('says so when seconds are sent where milliseconds are expected', () => {
    const { message } = refusal('v2', '1700000000');
    expect(message).toMatch(/^x-timestamp must be an integer Unix time in milliseconds/);
    expect(message).toMatch(/looks like seconds/);
  });

  it.each(['', 'abc', '1700000000.5', '-1700000000', '+1700000000', '1.7e9', '0x6553F100', ' 1700000000', '1'.repeat(17)])(
    'refuses the non-integer %j',
    (raw) => {
      expect(refusal('crypto', raw).message).toMatch(/not an integer/);
    },
  );
});
