import type { Request, RequestHandler, Response } from 'express';
import type { Cluster, Redis } from 'ioredis';
import { ApiError } from '@pay/schemas';
import { RedisGate, type GateResult, type RateRule } from './redis-gate';

export interface RateLimitOptions {
  redis: Redis | Cluster;
  rule: RateRule;
  /** Who is counted; null skips the request. */
  identify: (req: Request) => string | null;
  onError?: (err: unknown) => void;
}

/**
 * `X-RateLimit-*` on every counted answer, so clients can pace themselves before a 429. A
 * request counted under several limits (a page: its client's and its invoice's) shows the one
 * with the fewest requests left.
 */
export function setRateHeaders(res: Response, rule: RateRule, result: GateResult): void {
  const remaining = Math.max(0, rule.limit - result.count);
  const shown = res.getHeader('X-RateLimit-Remaining');
  if (shown !== undefined && Number(shown) <= remaining) return;
  res.setHeader('X-RateLimit-Limit', String(rule.limit));
  res.setHeader('X-RateLimit-Remaining', String(remaining));
}

/** 429 RATE_LIMITED with Retry-After (seconds until the window resets). */
export function rateLimited(res: Response, rule: RateRule, result: GateResult): ApiError {
  res.setHeader('Retry-After', String(result.retryAfterS));
  return new ApiError('RATE_LIMITED', `Too many requests: at most ${rule.limit} per ${rule.windowMs / 1000} s; retry after ${result.retryAfterS} s`);
}

/**
 * Fixed-window limiter in Redis (one round trip per request), shared by every instance of
 * a service. Over the limit: 429 RATE_LIMITED with Retry-After. If Redis fails, requests
 * pass: refusing every payment because a counter is unreachable is the worse outcome.
 * (Signed operations count inside requireSignature instead, in the replay claim's round trip.)
 */
export function rateLimit(opts: RateLimitOptions): RequestHandler {
  const gate = new RedisGate(opts.redis);
  return async (req, res, next) => {
    const who = opts.identify(req);
    if (!who) return next();
    let result: GateResult;
    try {
      result = await gate.pass({ rate: { rule: opts.rule, who } });
    } catch (err) {
      opts.onError?.(err);
      return next();
    }
    setRateHeaders(res, opts.rule, result);
    next(result.allowed ? undefined : rateLimited(res, opts.rule, result));
  };
}
