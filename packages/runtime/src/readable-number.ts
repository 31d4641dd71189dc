import { randomFillSync } from 'node:crypto';

/** No I or O: a number read out on a phone call cannot be misheard as 1 or 0. */
const SUFFIX_ALPHABET = '0123456789ABCDEFGHJKLMNPQRSTUVWXYZ';
const SUFFIX_LENGTH = 8;

/**
 * Random bytes drawn 1 KB at a time and used 8 at a time, each once: a `randomBytes(8)` per
 * number cost more than the rest of the number (a buffer and a call into the CSPRNG each).
 */
const pool = Buffer.alloc(1024);
let used = pool.length;

/**
 * `<PREFIX>-<yyyymmdd>-<8 chars>` (withdrawals `WD-…`, invoices `INV-…`): readable on a phone
 * call, unique by its random part (34^8 ≈ 1.8·10^12 a day). Callers keep a unique index and
 * draw again on a collision.
 */
export function readableNumber(prefix: string, at: Date): string {
  if (used + SUFFIX_LENGTH > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  const date = at.toISOString().slice(0, 10).replace(/-/g, '');
  let suffix = '';
  for (let i = 0; i < SUFFIX_LENGTH; i++) suffix += SUFFIX_ALPHABET[pool[used++]! % SUFFIX_ALPHABET.length];
  return `${prefix}-${date}-${suffix}`;
}
