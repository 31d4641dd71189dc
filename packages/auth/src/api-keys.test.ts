import { createHash } from 'node:crypto';
import { generateApiKey, hashApiKey, parseApiKey } from './api-keys';

const sha256Hex = (text: string) => createHash('sha256').update(text).digest('hex');

describe('generateApiKey', () => {
  it.each(['live', 'test'] as const)('issues a %s key: prefix, 32 random bytes in unpadded base64url', (mode) => {
    const key = generateApiKey(mode);
    expect(key.value).toMatch(new RegExp(`^sk_${mode}_[A-Za-z0-9_-]{43}$`));
    expect(Buffer.from(key.value.slice(`sk_${mode}_`.length), 'base64url')).toHaveLength(32);
    expect(parseApiKey(key.value)).toEqual({ mode });
  });

  it('returns the SHA-256 hex of the whole value and the first 12 characters for display', () => {
    const key = generateApiKey('live');
    expect(key.hash).toBe(sha256Hex(key.value));
    expect(key.prefix).toBe(key.value.slice(0, 12));
    expect(key.prefix).toMatch(/^sk_live_[A-Za-z0-9_-]{4}$/);
  });

  it('never repeats a value', () => {
    const values = new Set(Array.from({ length: 200 }, () => generateApiKey('test').value));
    expect(values.size).toBe(200);
  });
});

describe('hashApiKey', () => {
  it('matches a vector computed with openssl dgst -sha256', () => {
    expect(hashApiKey('sk_test_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA')).toBe(
      '354c2d230ac6d640b049ed5b46029f27b79834624f31a413e261a50d8859bb8f',
    );
  });
});

describe('parseApiKey', () => {
  const body = 'A'.repeat(43);

  it('reads the mode from the prefix', () => {
    expect(parseApiKey(`sk_live_${body}`)).toEqual({ mode: 'live' });
    expect(parseApiKey(`sk_test_${body}`)).toEqual({ mode: 'test' });
  });

  it.each([
    ['empty', ''],
    ['unknown mode', `sk_prod_${body}`],
    ['publishable-style prefix', `pk_live_${body}`],
    ['upper-case prefix', `SK_LIVE_${body}`],
    ['too short', `sk_live_${'A'.repeat(42)}`],
    ['too long', `sk_live_${'A'.repeat(44)}`],
    ['padded', `sk_live_${'A'.repeat(42)}=`],
    ['standard base64 alphabet', `sk_live_${'A'.repeat(41)}+/`],
    ['surrounding whitespace', ` sk_live_${body}`],
    ['trailing newline', `sk_live_${body}\n`],
    ['HMAC secret instead of key', `hs_${body}`],
  ])('refuses %s', (_label, value) => {
    expect(parseApiKey(value)).toBeNull();
  });
});
