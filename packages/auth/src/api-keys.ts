import { hash, randomBytes } from 'node:crypto';

export type ApiKeyMode = 'live' | 'test';

export interface GeneratedApiKey {
  /** Shown to the merchant once, never stored. */
  value: string;
  /** SHA-256 hex of `value`: the only form persisted. */
  hash: string;
  /** Enough to recognise a key in a list without being usable. */
  prefix: string;
}

const KEY_RANDOM_BYTES = 32;
const DISPLAY_PREFIX_LENGTH = 12;
// 32 bytes in unpadded base64url are exactly 43 characters.
const API_KEY_FORMAT = /^sk_(live|test)_[A-Za-z0-9_-]{43}$/;

export function generateApiKey(mode: ApiKeyMode): GeneratedApiKey {
  const value = `sk_${mode}_${randomBytes(KEY_RANDOM_BYTES).toString('base64url')}`;
  return { value, hash: hashApiKey(value), prefix: value.slice(0, DISPLAY_PREFIX_LENGTH) };
}

/**
 * A plain, unsalted hash is enough: the key carries 256 bits of randomness, so there is
 * nothing to brute-force, and lookups must stay a single indexed equality match.
 */
export function hashApiKey(value: string): string {
  return hash('sha256', value, 'hex'); // one-shot: half the cost of createHash().update().digest()
}

/** Null for anything that could not have been issued by `generateApiKey`, so it is refused before any lookup. */
export function parseApiKey(value: string): { mode: ApiKeyMode } | null {
  const match = API_KEY_FORMAT.exec(value);
  return match ? { mode: match[1] as ApiKeyMode } : null;
}
