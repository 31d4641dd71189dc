import { createDecipheriv, randomBytes } from 'node:crypto';
import { generateHmacSecret, SecretBox, SecretBoxError } from './secret-box';

const KEY_HEX = '0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0';
const box = SecretBox.fromEnv(KEY_HEX);

/** Replaces one character of the envelope part at `index` with a different base64url character. */
function alterPart(envelope: string, index: number): string {
  const parts = envelope.split('.');
  const part = parts[index]!;
  parts[index] = (part[0] === 'A' ? 'B' : 'A') + part.slice(1);
  return parts.join('.');
}

describe('SecretBox', () => {
  it.each(['hs_abc', '', 'ünïcødé ✓', 'x'.repeat(5000)])('round-trips %j', (plain) => {
    expect(box.open(box.seal(plain))).toBe(plain);
  });

  it('writes v1.<iv>.<tag>.<ciphertext> in base64url with a 12-byte IV and 16-byte tag', () => {
    const envelope = box.seal('hs_secret');
    expect(envelope).toMatch(/^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]+$/);
    const [, iv, tag] = envelope.split('.');
    expect(Buffer.from(iv!, 'base64url')).toHaveLength(12);
    expect(Buffer.from(tag!, 'base64url')).toHaveLength(16);
  });

  it('is plain AES-256-GCM with the version tag as associated data (decrypted here without SecretBox)', () => {
    const [, iv, tag, ciphertext] = box.seal('hs_interop').split('.');
    const decipher = createDecipheriv('aes-256-gcm', Buffer.from(KEY_HEX, 'hex'), Buffer.from(iv!, 'base64url'));
    decipher.setAAD(Buffer.from('v1'));
    decipher.setAuthTag(Buffer.from(tag!, 'base64url'));
    const plain = Buffer.concat([decipher.update(Buffer.from(ciphertext!, 'base64url')), decipher.final()]);
    expect(plain.toString('utf8')).toBe('hs_interop');
  });

  it('uses a fresh IV for every seal', () => {
    const envelopes = Array.from({ length: 50 }, () => box.seal('same plaintext'));
    expect(new Set(envelopes).size).toBe(50);
    expect(new Set(envelopes.map((e) => e.split('.')[1])).size).toBe(50);
  });

  it.each([
    ['IV', 1],
    ['tag', 2],
    ['ciphertext', 3],
  ])('refuses an envelope whose %s was altered', (_part, index) => {
    const altered = alterPart(box.seal('hs_secret'), index);
    expect(() => box.open(altered)).toThrow(SecretBoxError);
    expect(() => box.open(altered)).toThrow(/altered or sealed with a different key/);
  });

  it.each([
    ['another version tag', (e: string) => e.replace(/^v1\./, 'v2.')],
    ['a missing part', (e: string) => e.split('.').slice(0, 3).join('.')],
    ['an extra part', (e: string) => `${e}.AAAA`],
    ['a truncated tag', (e: string) => e.split('.').map((p, i) => (i === 2 ? p.slice(0, 10) : p)).join('.')],
    ['non-base64url characters', (e: string) => e.replace(/\.([^.]+)$/, '.$1+/')],
    ['not an envelope at all', () => 'hs_plaintext_secret'],
  ])('refuses %s', (_label, mutate) => {
    expect(() => box.open(mutate(box.seal('hs_secret')))).toThrow(SecretBoxError);
  });

  it('refuses to open with a different key', () => {
    const other = new SecretBox(randomBytes(32));
    expect(() => other.open(box.seal('hs_secret'))).toThrow(/altered or sealed with a different key/);
  });

  it('does not keep a reference to the caller’s key buffer', () => {
    const key = randomBytes(32);
    const own = new SecretBox(key);
    const envelope = own.seal('hs_secret');
    key.fill(0);
    expect(own.open(envelope)).toBe('hs_secret');
  });
});

describe('SecretBox.fromEnv', () => {
  const key = Buffer.from(KEY_HEX, 'hex');

  it.each([
    ['hex', KEY_HEX],
    ['upper-case hex', KEY_HEX.toUpperCase()],
    ['padded base64', key.toString('base64')],
    ['unpadded base64url', key.toString('base64url')],
    ['hex with a trailing newline', `${KEY_HEX}\n`],
  ])('accepts the key as %s', (_label, value) => {
    expect(SecretBox.fromEnv(value).open(box.seal('hs_shared'))).toBe('hs_shared');
  });

  it.each([
    ['unset', undefined, /not set/],
    ['empty', '', /not set/],
    ['63 hex characters', KEY_HEX.slice(1), /decodes to 47 bytes/],
    ['a 16-byte key', randomBytes(16).toString('base64'), /decodes to 16 bytes/],
    ['a 64-byte key', randomBytes(64).toString('hex'), /decodes to 96 bytes/],
    ['a passphrase', 'correct horse battery staple!', /neither hex nor base64/],
  ])('refuses %s with a clear message that does not echo the value', (_label, value, detail) => {
    let error: unknown;
    try {
      SecretBox.fromEnv(value);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(SecretBoxError);
    const message = (error as Error).message;
    expect(message).toMatch(/^SECRETS_KEY must be a 32-byte key given as 64 hex characters or base64/);
    expect(message).toMatch(detail);
    if (value) expect(message).not.toContain(value.trim());
  });

  it('names the variable it was given', () => {
    expect(() => SecretBox.fromEnv('nope', 'INVOICING_SECRETS_KEY')).toThrow(/^INVOICING_SECRETS_KEY must be/);
  });
});

describe('generateHmacSecret', () => {
  it('is hs_ followed by 32 random bytes in base64url', () => {
    const secret = generateHmacSecret();
    expect(secret).toMatch(/^hs_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(secret.slice(3), 'base64url')).toHaveLength(32);
    expect(generateHmacSecret()).not.toBe(secret);
  });
});
