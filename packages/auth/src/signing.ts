import { createHmac, timingSafeEqual } from 'node:crypto';
import { ApiError } from '@pay/schemas';
import { hmacKey } from './hmac-key';

/** `crypto`: the crypto service's API. `v2`: invoicing API v2. Same payload, different header conventions. */
export type SigningStyle = 'crypto' | 'v2';
export type TimestampUnit = 'seconds' | 'milliseconds';
export type SignatureEncoding = 'base64' | 'hex';

export interface SigningStyleSpec {
  /** Spelled as the API documentation spells it; HTTP header names are case-insensitive on the wire. */
  timestampHeader: string;
  signatureHeader: string;
  timestampUnit: TimestampUnit;
  signatureEncoding: SignatureEncoding;
}

export const SIGNING_STYLES: Readonly<Record<SigningStyle, Readonly<SigningStyleSpec>>> = {
  crypto: { timestampHeader: 'X-Timestamp', signatureHeader: 'X-Signature', timestampUnit: 'seconds', signatureEncoding: 'base64' },
  v2: { timestampHeader: 'x-timestamp', signatureHeader: 'x-signature', timestampUnit: 'milliseconds', signatureEncoding: 'hex' },
};

/** Allowed clock skew, either way. */
export const SIGNATURE_WINDOW_MS = 300_000;

export interface SignedRequestParts {
  /** Exactly as sent in the timestamp header: the signature covers the text, not the number. */
  timestamp: string | number;
  method: string;
  /** A query string, if present, is not signed and is dropped here. */
  path: string;
  /** The raw body bytes as sent; absent or empty when there is no body. */
  body?: string | Buffer;
}

/**
 * The HMAC of `{timestamp}.{METHOD}.{path}{rawBody}`: the head as UTF-8, then the body's bytes
 * as sent (a body that is not valid UTF-8 is still signed as sent), each given to the HMAC as
 * it is rather than copied into one buffer first.
 */
export function signRequest(style: SigningStyle, secret: string, parts: SignedRequestParts): string {
  return createHmac('sha256', hmacKey(secret))
    .update(`${parts.timestamp}.${parts.method.toUpperCase()}.${pathWithoutQuery(parts.path)}`, 'utf8')
    .update(parts.body ?? '')
    .digest(SIGNING_STYLES[style].signatureEncoding);
}

/**
 * Compares the encoded text, so only the documented encoding is accepted (lower-case hex,
 * padded standard Base64) rather than whatever a lenient decoder would make of the input.
 */
export function verifyRequestSignature(style: SigningStyle, secret: string, parts: SignedRequestParts, signature: string): boolean {
  const expected = Buffer.from(signRequest(style, secret, parts), 'utf8');
  const given = Buffer.from(signature, 'utf8');
  // Signature length is public (fixed per style), so leaking it costs nothing; timingSafeEqual requires equal lengths.
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The timestamp header value a client would send at `nowMs`. */
export function timestampFor(style: SigningStyle, nowMs: number): string {
  return String(SIGNING_STYLES[style].timestampUnit === 'seconds' ? Math.floor(nowMs / 1000) : Math.floor(nowMs));
}

/** Headers a client sends for a signed request: for tests, benches and the integration docs. */
export function signedHeaders(
  style: SigningStyle,
  secret: string,
  req: { method: string; path: string; body?: string | Buffer; now?: number },
): Record<string, string> {
  const spec = SIGNING_STYLES[style];
  const timestamp = timestampFor(style, req.now ?? Date.now());
  return {
    [spec.timestampHeader]: timestamp,
    [spec.signatureHeader]: signRequest(style, secret, { timestamp, method: req.method, path: req.path, body: req.body }),
  };
}

// Far beyond any real date in seconds (year 5138), far before any real date in milliseconds (1973).
const UNIT_BOUNDARY = 1e11;
const INTEGER = /^[0-9]{1,16}$/;

/**
 * Throws TIMESTAMP_OUT_OF_WINDOW unless `raw` is an integer in the style's unit within the
 * window of `nowMs`. Sending the wrong unit is the most common integration mistake, so the
 * message names the unit and says when the value looks like the other one.
 */
export function assertTimestampInWindow(style: SigningStyle, raw: string, nowMs: number): void {
  const spec = SIGNING_STYLES[style];
  const windowSeconds = SIGNATURE_WINDOW_MS / 1000;
  const rule = `${spec.timestampHeader} must be an integer Unix time in ${spec.timestampUnit}, within ${windowSeconds} s of server time`;
  if (!INTEGER.test(raw)) throw new ApiError('TIMESTAMP_OUT_OF_WINDOW', `${rule}; got a value that is not an integer`);
  const value = Number(raw);
  // Compared in the style's own unit: a timestamp in whole seconds is as old as the whole
  // seconds elapsed, so the window is the same 300 s on both sides.
  const skewMs = spec.timestampUnit === 'seconds' ? (value - Math.floor(nowMs / 1000)) * 1000 : value - nowMs;
  if (Math.abs(skewMs) <= SIGNATURE_WINDOW_MS) return;
  const looksLikeOtherUnit = spec.timestampUnit === 'seconds' ? value >= UNIT_BOUNDARY : value < UNIT_BOUNDARY;
  const hint = looksLikeOtherUnit
    ? `; the value sent looks like ${spec.timestampUnit === 'seconds' ? 'milliseconds' : 'seconds'}`
    : `; it is ${Math.ceil(Math.abs(skewMs) / 1000)} s ${skewMs < 0 ? 'old' : 'in the future'}`;
  throw new ApiError('TIMESTAMP_OUT_OF_WINDOW', `${rule}${hint}`);
}

function pathWithoutQuery(path: string): string {
  const query = path.indexOf('?');
  return query === -1 ? path : path.slice(0, query);
}
