import type { RequestHandler } from 'express';
import type { Redis } from 'ioredis';
import { ReplayGuard, requireApiKey, requireSignature, SIGNATURE_WINDOW_MS, type SecretBox, type SigningStyle } from '@pay/auth';
import { rateLimit, type Clock, type Logger } from '@pay/kit';
import type { AccountsDb } from './db';
import { accountsKeyResolver } from './key-resolver';

export interface MerchantGuardOptions {
  /** Names the Redis keys (`rl:<service>:…`, `replay:<service>:…`). */
  service: string;
  /** How this API's signed operations sign (decisions.md §2). */
  signing: SigningStyle;
  accounts: AccountsDb;
  secrets: SecretBox;
  /** The request-path Redis client (fails fast while Redis is away). */
  redis: Redis;
  logger: Logger;
  clock: Clock;
  limits: { perKeyPerSecond: number; anonymousPerMinute: number };
}

/**
 * The guards of every merchant-facing API, per auth level, for `new Api({ auth })`: the same
 * key resolution, rate limits, signature check and replay guard on both base URLs, so a
 * revoked key or a regenerated secret behaves the same everywhere.
 * - `none`: rate limited per client address;
 * - `key`: `X-Api-Key`, then rate limited per key;
 * - `signed`: `key`, then the request signature in this API's style, accepted once.
 */
export function merchantGuards(o: MerchantGuardOptions): { none: RequestHandler[]; key: RequestHandler[]; signed: RequestHandler[] } {
  const onError = (err: unknown) => o.logger.warn({ err }, 'rate limiter unavailable; letting requests through');
  const perKey = rateLimit({
    redis: o.redis,
    prefix: `rl:${o.service}:key`,
    limit: o.limits.perKeyPerSecond,
    windowMs: 1000,
    identify: (req) => req.auth?.keyId ?? null,
    onError,
  });
  const anonymous = rateLimit({
    redis: o.redis,
    prefix: `rl:${o.service}:ip`,
    limit: o.limits.anonymousPerMinute,
    windowMs: 60_000,
    identify: (req) => req.socket.remoteAddress ?? 'unknown',
    onError,
  });
  const key = [requireApiKey(accountsKeyResolver(o.accounts, o.secrets)), perKey];
  const signed = [
    ...key,
    requireSignature({
      style: o.signing,
      replayGuard: new ReplayGuard(o.redis, { windowMs: SIGNATURE_WINDOW_MS, prefix: `replay:${o.service}:` }),
      now: () => o.clock.now().getTime(),
    }),
  ];
  return { none: [anonymous], key, signed };
}
