import { createHash, timingSafeEqual } from 'node:crypto';

/** A request or notification body as the acquirer's protocol carries it: root-level members. */
export type TBankParams = Record<string, unknown>;

/**
 * The value of one root member as it enters the Token: strings as they are, booleans as
 * `true`/`false`, numbers as their digits. `numberText` gives a number's source text when the
 * body was received as JSON text (a 20-digit PaymentId does not survive a double).
 */
function tokenValue(value: unknown, numberText?: string): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return numberText ?? String(value);
  // Objects and arrays (DATA, Receipt, Shops) never enter the Token; neither do nulls.
  return null;
}

/**
 * T-Bank's request Token (developer.tbank.ru/eacq/intro/developer/token): the root members but
 * `Token` (nested objects and arrays left out) with `Password` added, sorted by key, their
 * values concatenated, SHA-256, lower-case hex.
 */
export function tbankToken(params: TBankParams, password: string, numberText: (key: string) => string | undefined = () => undefined): string {
  const pairs: [string, string][] = [['Password', password]];
  for (const [key, value] of Object.entries(params)) {
    if (key === 'Token') continue;
    const text = tokenValue(value, numberText(key));
    if (text !== null) pairs.push([key, text]);
  }
  pairs.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return createHash('sha256')
    .update(pairs.map(([, v]) => v).join(''), 'utf8')
    .digest('hex');
}

/** The params with their Token added, as every request to the acquirer is sent. */
export function signed(params: TBankParams, password: string): TBankParams {
  return { ...params, Token: tbankToken(params, password) };
}

/** Whether a received body carries the Token its members and the password give; constant-time. */
export function hasValidToken(body: TBankParams, password: string, numberText?: (key: string) => string | undefined): boolean {
  const given = body.Token;
  if (typeof given !== 'string' || !/^[0-9a-f]{64}$/i.test(given)) return false;
  const expected = Buffer.from(tbankToken(body, password, numberText), 'hex');
  return timingSafeEqual(expected, Buffer.from(given.toLowerCase(), 'hex'));
}
