import { randomBytes } from 'node:crypto';

/** No I or O: a number read out on a phone call cannot be misheard as 1 or 0. */
const SUFFIX_ALPHABET = '0123456789ABCDEFGHJKLMNPQRSTUVWXYZ';

/**
 * `<PREFIX>-<yyyymmdd>-<8 chars>` (withdrawals `WD-…`, invoices `INV-…`): readable on a phone
 * call, unique by its random part (34^8 ≈ 1.8·10^12 a day). Callers keep a unique index and
 * draw again on a collision.
 */
export function readableNumber(prefix: string, at: Date): string {
  const date = at.toISOString().slice(0, 10).replace(/-/g, '');
  const suffix = [...randomBytes(8)].map((b) => SUFFIX_ALPHABET[b % SUFFIX_ALPHABET.length]).join('');
  return `${prefix}-${date}-${suffix}`;
}
