import express, { type Request, type RequestHandler } from 'express';
import { rateLimited, setRateHeaders } from './rate-limit';
import { keyCaller, signatureClaimId, type GateResult, type RateRule } from './redis-gate';
import { ApiError } from '@pay/schemas';
import { hashApiKey, parseApiKey } from './api-keys';
import type { ReplayGuard } from './replay-guard';
import { assertTimestampInWindow, SIGNATURE_WINDOW_MS, SIGNING_STYLES, verifyRequestSignature, type SigningStyle } from './signing';

/** What the accounts store says about an API key, read in one lookup. */
export interface ResolvedKey {
  keyId: string;
  merchantId: string;
  isTestKey: boolean;
  revokedAt: Date | null;
  merchantActive: boolean;
  /**
   * The merchant's HMAC secret in plain text. Read together with the key and unsealed only
   * when a signature is checked, so a signed request costs one lookup, never a stale cache.
   */
  hmacSecret(): Promise<string>;
}

export interface KeyResolver {
  resolve(keyHash: string): Promise<ResolvedKey | null>;
}

/** The resolved key of each authenticated request, for requireSignature. */
const resolvedKeys = new WeakMap<Request, ResolvedKey>();

const EMPTY_BODY = Buffer.alloc(0);

/**
 * `express.json` that also keeps the bytes it parsed in `req.rawBody`, because signatures
 * cover the body as sent and a re-serialised `req.body` may differ (key order, spacing,
 * number formatting). `rawBody` is an empty buffer when there was no JSON body.
 */
export function jsonWithRawBody(opts: { limit: string | number }): RequestHandler {
  const parseJson = express.json({
    limit: opts.limit,
    // What requireJsonBody lets through must be parsed, or a vendor +json body would reach
    // validation (and the signature check) as empty.
    type: ['application/json', 'application/*+json'],
    // Signatures cover the body as sent; a compressed body would leave it unclear which bytes
    // were signed, and bodies are small. Refused with 415.
    inflate: false,
    verify: (req, _res, buf) => {
      (req as Request).rawBody = buf;
    },
  });
  return (req, res, next) => {
    parseJson(req, res, (err?: unknown) => {
      req.rawBody ??= EMPTY_BODY;
      next(err);
    });
  };
}

/** Authenticates the caller by `X-Api-Key` and sets `req.auth`. */
export function requireApiKey(resolver: KeyResolver): RequestHandler {
  return async (req, _res, next) => {
    try {
      const key = await authenticate(resolver, req.get('x-api-key'));
      resolvedKeys.set(req, key);
      req.auth = { keyId: key.keyId, merchantId: key.merchantId, isTestMode: key.isTestKey };
      next();
    } catch (err) {
      next(err);
    }
  };
}

async function authenticate(resolver: KeyResolver, value: string | undefined): Promise<ResolvedKey> {
  if (!value) throw new ApiError('UNAUTHORIZED', 'Missing X-Api-Key header');
  if (!parseApiKey(value)) {
    throw new ApiError('UNAUTHORIZED', 'API key is malformed: expected sk_live_ or sk_test_ followed by 43 characters, as issued');
  }
  const key = await resolver.resolve(hashApiKey(value));
  if (!key) throw new ApiError('UNAUTHORIZED', 'API key is not valid');
  if (key.revokedAt) throw new ApiError('UNAUTHORIZED', 'API key has been revoked');
  if (!key.merchantActive) throw new ApiError('FORBIDDEN', 'Merchant account is suspended');
  return key;
}

export interface RequireSignatureOptions {
  style: SigningStyle;
  replayGuard: ReplayGuard;
  /** Milliseconds since the epoch; injectable so tests can move the clock. */
  now?: () => number;
  /**
   * Counts signed requests per API key in the replay claim's own round trip (instead of a
   * separate rateLimit guard). Refused requests (bad signature, stale timestamp) count too.
   */
  rateLimit?: RateRule;
  /** Told why a signature could not be checked for replay (Redis failed the claim), before the 503 answer. */
  onUnavailable?: (err: unknown, req: Request) => void;
}

/** Verifies the request signature of an already authenticated caller (mount after `requireApiKey`). */
export function requireSignature(opts: RequireSignatureOptions): RequestHandler {
  const spec = SIGNING_STYLES[opts.style];
  if (opts.replayGuard.windowMs < SIGNATURE_WINDOW_MS) {
    // A shorter memory would let a captured request be replayed while its timestamp is still accepted.
    throw new Error(`requireSignature: the replay guard window must be at least ${SIGNATURE_WINDOW_MS} ms`);
  }
  const now = opts.now ?? Date.now;
  const encoding = spec.signatureEncoding === 'hex' ? 'lower-case hex' : 'Base64';
  const howToSign =
    `${spec.signatureHeader} must be the ${encoding} HMAC-SHA256, keyed with your HMAC secret, of ` +
    '`{timestamp}.{METHOD}.{path}{body}` (path without query string, body exactly as sent)';

  /** Why the request's signature is not acceptable, or null when it is (checked before Redis is asked anything). */
  async function refusal(req: Request, key: ResolvedKey, timestamp: string | undefined, signature: string | undefined): Promise<ApiError | null> {
    if (!timestamp || !signature) {
      const missing = [timestamp ? null : spec.timestampHeader, signature ? null : spec.signatureHeader].filter(Boolean);
      return new ApiError('INVALID_SIGNATURE', `Missing ${missing.join(' and ')} header${missing.length > 1 ? 's' : ''}`);
    }
    try {
      assertTimestampInWindow(opts.style, timestamp, now());
    } catch (err) {
      return err as ApiError;
    }
    const secret = await key.hmacSecret();
    const signed = { timestamp, method: req.method, path: req.originalUrl, body: req.rawBody ?? EMPTY_BODY };
    return verifyRequestSignature(opts.style, secret, signed, signature) ? null : new ApiError('INVALID_SIGNATURE', `Signature does not match the request. ${howToSign}`);
  }

  return async (req, res, next) => {
    try {
      const auth = req.auth;
      const key = resolvedKeys.get(req);
      if (!auth || !key) throw new Error('requireSignature must be mounted after requireApiKey');
      const rate = opts.rateLimit ? { rule: opts.rateLimit, who: keyCaller(auth) } : undefined;
      const signature = req.get(spec.signatureHeader);
      const refused = await refusal(req, key, req.get(spec.timestampHeader), signature);
      if (refused) {
        if (rate) {
          // Counted so refusals are rate limited too; if Redis is away the refusal stands alone.
          const counted = await opts.replayGuard.count(rate, now()).catch(() => null);
          if (counted && !counted.allowed) throw rateLimited(res, rate.rule, counted);
        }
        throw refused;
      }

      // Claimed only once verified, so a forged request cannot burn a genuine signature. Keyed by
      // merchant, not API key: the payload does not include the key, so the same signature is
      // valid with any of the merchant's keys. The rate count rides in the same round trip.
      let result: GateResult;
      try {
        // signature is set: refusal() refused a request without one.
        result = await opts.replayGuard.claimCounted(signatureClaimId(auth.merchantId, signature!), rate, now());
      } catch (err) {
        // A signature that cannot be checked for replay is not accepted: accepting it would let
        // a captured request through twice. The caller can retry with a fresh signature.
        opts.onUnavailable?.(err, req);
        throw new ApiError('SERVICE_UNAVAILABLE', 'Signed requests cannot be checked for replay right now; retry shortly with a fresh signature');
      }
      if (rate) setRateHeaders(res, rate.rule, result);
      if (!result.allowed) throw rateLimited(res, rate!.rule, result);
      if (!result.claimed) {
        // Worded for what is known: the signature was used, not that its request succeeded (a
        // request can pass here and be refused by its route, or come through another key).
        throw new ApiError(
          'REPLAYED_REQUEST',
          "This signature was already used: each one is good for a single request, whatever that request's answer was and whichever of the merchant's API keys sent it. Sign every request, retries included, with a fresh timestamp",
        );
      }
      next();
    } catch (err) {
      next(err);
    }
  };
}
