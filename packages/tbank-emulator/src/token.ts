import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * The Token as the acquirer computes it, written here on its own from the documentation
 * (developer.tbank.ru/eacq/intro/developer/token) so that the adapter is checked by an
 * independent reading: root-level key/value pairs except Token (objects and arrays do not
 * take part), plus Password, ordered by key, values joined, SHA-256 in hex.
 */
export function acquirerToken(body: Record<string, unknown>, password: string): string {
  const entries = Object.entries({ ...body, Password: password })
    .filter(([k, v]) => k !== 'Token' && v !== null && v !== undefined && typeof v !== 'object')
    .sort((a, b) => (a[0] < b[0] ? -1 : 1));
  return createHash('sha256').update(entries.map(([, v]) => String(v)).join('')).digest('hex');
}

export function tokenMatches(body: Record<string, unknown>, password: string): boolean {
  const token = body.Token;
  if (typeof token !== 'string' || token.length !== 64) return false;
  return timingSafeEqual(Buffer.from(acquirerToken(body, password)), Buffer.from(token.toLowerCase()));
}
