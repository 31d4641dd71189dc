import type { RequestHandler } from 'express';
import { keyCaller, rateLimit, ReplayGuard, requireApiKey, requireSignature, SIGNATURE_WINDOW_MS, type KeyResolver, type RateRule, type SigningStyle } from '@pay/auth';
import type { Clock, Logger, RedisClient } from '@pay/runtime';
import type { Queries } from '@pay/db';
import { apiKeyOrConsoleSession } from './console-sessions';

export interface MerchantGuardOptions {
  /** Names the Redis keys (`rl:<service>:…`, `replay:<service>:…`). */
  service: string;
  /** How this API's signed operations sign. */
  signing: SigningStyle;
  /** Key resolution (`accountKeys(...).resolver`: cached, invalidated across processes). */
  resolver: KeyResolver;
  /** The request-path Redis client (fails fast while Redis is away). */
  redis: RedisClient;
  logger: Logger;
  clock: Clock;
  limits: {
    perKeyPerSecond: number;
    anonymousPerMinute: number;
    pagesPerMinute: number;
    /** Requests to one invoice's pages (`:invoiceId` routes) per minute, every client together; unset: no such limit. */
    pagesPerInvoicePerMinute?: number;
  };
  /**
   * Where console sessions are read (the service's client): when given, `key` routes also
   * take a console session in `X-Console-Session`, for reading only (`apiKeyOrConsoleSession`):
   * the console shows a merchant's data through the API the merchant calls.
   */
  consoleSessions?: Queries;
}

/**
 * The guards of every merchant-facing API, per auth level, for `new Api({ auth })`: the same
 * key resolution, rate limits, signature check and replay guard on both base URLs, so a
 * revoked key or a regenerated secret behaves the same everywhere.
 * - `none`: rate limited per client address (registration, console sign-in: a tight limit);
 * - `page`: hosted pages for customers, per client address with a limit of their own (a
 *   page polls its status, and a carrier's NAT puts many customers behind one address), and
 *   then, on a route of one invoice (`:invoiceId`), per invoice across every client: many
 *   clients (or forged addresses behind a trusted proxy) cannot hammer one invoice's page,
 *   receipt upload or payment start;
 * - `key`: `X-Api-Key` (or, with `consoleSessions`, a console session for GET and HEAD), then
 *   rate limited per key (one Redis round trip);
 * - `signed`: `X-Api-Key`, then the request signature in this API's style, accepted once and
 *   counted against the same per-key limit in one Redis round trip.
 */
export function merchantGuards(o: MerchantGuardOptions): { none: RequestHandler[]; page: RequestHandler[]; key: RequestHandler[]; signed: RequestHandler[] } {
  const onError = (err: unknown) => o.logger.warn({ err }, 'rate limiter unavailable; letting requests through');
  const perKey: RateRule = { prefix: `rl:${o.service}:key`, limit: o.limits.perKeyPerSecond, windowMs: 1000 };
  const perAddress: RateRule = { prefix: `rl:${o.service}:ip`, limit: o.limits.anonymousPerMinute, windowMs: 60_000 };
  const perAddressPages: RateRule = { prefix: `rl:${o.service}:page`, limit: o.limits.pagesPerMinute, windowMs: 60_000 };
  const perInvoicePages: RateRule | null = o.limits.pagesPerInvoicePerMinute
    ? { prefix: `rl:${o.service}:page-invoice`, limit: o.limits.pagesPerInvoicePerMinute, windowMs: 60_000 }
    : null;
  // Lower case: a UUID's letters in another case name the same invoice, and must not buy a fresh budget.
  const invoice = (req: { params: Record<string, unknown> }) => (typeof req.params.invoiceId === 'string' ? req.params.invoiceId.toLowerCase() : null);
  // The client's address: `req.ip` follows X-Forwarded-For only as far as TRUST_PROXY trusts (else it is the socket's).
  const address = (req: { ip?: string; socket: { remoteAddress?: string } }) => req.ip ?? req.socket.remoteAddress ?? 'unknown';
  const authenticate = requireApiKey(o.resolver);
  const authenticateReader = o.consoleSessions ? apiKeyOrConsoleSession(authenticate, { db: o.consoleSessions, clock: o.clock }) : authenticate;
  return {
    none: [rateLimit({ redis: o.redis, rule: perAddress, identify: address, onError })],
    page: [
      rateLimit({ redis: o.redis, rule: perAddressPages, identify: address, onError }),
      ...(perInvoicePages ? [rateLimit({ redis: o.redis, rule: perInvoicePages, identify: invoice, onError })] : []),
    ],
    key: [authenticateReader, rateLimit({ redis: o.redis, rule: perKey, identify: (req) => (req.auth ? keyCaller(req.auth) : null), onError })],
    signed: [
      authenticate,
      requireSignature({
        style: o.signing,
        replayGuard: new ReplayGuard(o.redis, { windowMs: SIGNATURE_WINDOW_MS, prefix: `replay:${o.service}:` }),
        rateLimit: perKey,
        now: () => o.clock.now().getTime(),
        // Under the request's id, as its 503 is logged: the answer and its cause read together.
        onUnavailable: (err, req) => req.log.warn({ err }, 'replay guard unavailable; answering 503 to a signed request'),
      }),
    ],
  };
}
