import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const ALGORITHM = 'aes-256-gcm';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const VERSION = 'v1';
// Binding the version tag as associated data means a future format cannot be confused with v1 by editing the tag.
const AAD = Buffer.from(VERSION, 'utf8');
const BASE64URL_PART = /^[A-Za-z0-9_-]*$/;
const HEX_KEY = /^[0-9a-fA-F]{64}$/;
const BASE64_KEY = /^[A-Za-z0-9+/_-]+={0,2}$/;

export class SecretBoxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretBoxError';
  }
}

/**
 * Encrypts secrets that must be recoverable (HMAC secrets) for storage at rest.
 * Envelope: `v1.<iv>.<tag>.<ciphertext>`, each part base64url, so it fits a text column.
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== KEY_BYTES) throw new SecretBoxError(`SecretBox key must be ${KEY_BYTES} bytes, got ${key.length}`);
    this.key = Buffer.from(key);
  }

  /** The key never appears in the error: these messages end up in deploy logs. */
  static fromEnv(value: string | undefined, name = 'SECRETS_KEY'): SecretBox {
    const expected = `${name} must be a ${KEY_BYTES}-byte key given as 64 hex characters or base64`;
    const text = value?.trim() ?? '';
    if (text === '') throw new SecretBoxError(`${expected}; it is not set`);
    if (HEX_KEY.test(text)) return new SecretBox(Buffer.from(text, 'hex'));
    if (!BASE64_KEY.test(text)) throw new SecretBoxError(`${expected}; the value is neither hex nor base64`);
    const decoded = Buffer.from(text, 'base64');
    if (decoded.length !== KEY_BYTES) {
      throw new SecretBoxError(`${expected}; the value decodes to ${decoded.length} bytes`);
    }
    return new SecretBox(decoded);
  }

  seal(plain: string): string {
    // GCM loses all confidentiality if an IV repeats under one key, so every seal draws a new one.
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(ALGORITHM, this.key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(AAD);
    const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    const tag = cipher.getAuthTag();
    return `${VERSION}.${iv.toString('base64url')}.${tag.toString('base64url')}.${ciphertext.toString('base64url')}`;
  }

  open(envelope: string): string {
    const parts = envelope.split('.');
    const [version, ivText, tagText, ciphertextText] = parts;
    if (parts.length !== 4 || version === undefined || ivText === undefined || tagText === undefined || ciphertextText === undefined) {
      throw new SecretBoxError('Malformed secret envelope: expected v1.<iv>.<tag>.<ciphertext>');
    }
    if (version !== VERSION) throw new SecretBoxError(`Unsupported secret envelope version "${version.slice(0, 8)}"`);
    if (![ivText, tagText, ciphertextText].every((part) => BASE64URL_PART.test(part))) {
      throw new SecretBoxError('Malformed secret envelope: parts must be base64url');
    }
    const iv = Buffer.from(ivText, 'base64url');
    const tag = Buffer.from(tagText, 'base64url');
    if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) {
      throw new SecretBoxError('Malformed secret envelope: wrong IV or tag length');
    }
    try {
      const decipher = createDecipheriv(ALGORITHM, this.key, iv, { authTagLength: TAG_BYTES });
      decipher.setAAD(AAD);
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(Buffer.from(ciphertextText, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretBoxError('Cannot decrypt secret envelope: it was altered or sealed with a different key');
    }
  }
}

/** The per-merchant HMAC signing secret, given to the merchant once and kept sealed in a SecretBox. */
export function generateHmacSecret(): string {
  return `hs_${randomBytes(32).toString('base64url')}`;
}
