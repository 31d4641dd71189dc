import type { Request, RequestHandler } from 'express';
import type { Redis } from 'ioredis';
import { ApiError } from '@pay/schemas';

export interface RateLimitOptions {
  redis: Redis;
  /** Redis key prefix, e.g. `rl:crypto:key`. */
  prefix: string;
  limit: number;
  windowMs: number;
  /** Who is counted; null skips the request. */
  identify: (req: Request) => string | null;
  onError?: (err: unknown) => void;
}

/**
 * Fixed-window limiter in Redis (one round trip per request), shared by every instance of
 * a service. Over the limit: 429 RATE_LIMITED with Retry-After. If Redis fails, requests
 * pass: refusing every payment because a counter is unreachable is the worse outcome.
 */
export function rateLimit(opts: RateLimitOptions): RequestHandler {
  return async (req, res, next) => {
    const who = opts.identify(req);
    if (!who) return next();
    const window = Math.floor(Date.now() / opts.windowMs);
    const key = `${opts.prefix}:${who}:${window}`;
    let count: number;
    try {
      const results = await opts.redis.multi().incr(key).pexpire(key, opts.windowMs).exec();
      count = Number(results?.[0]?.[1] ?? 0);
    } catch (err) {
      opts.onError?.(err);
      return next();
    }
    res.setHeader('X-RateLimit-Limit', String(opts.limit));
    res.setHeader('X-RateLimit-Remaining', String(Math.max(0, opts.limit - count)));
    if (count > opts.limit) {
      const retryAfter = Math.max(1, Math.ceil(((window + 1) * opts.windowMs - Date.now()) / 1000));
      res.setHeader('Retry-After', String(retryAfter));
      return next(new ApiError('RATE_LIMITED', `Too many requests: at most ${opts.limit} per ${opts.windowMs / 1000} s; retry after ${retryAfter} s`));
    }
    next();
  };
}
