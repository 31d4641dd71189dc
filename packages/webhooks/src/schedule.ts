import { createHash } from 'node:crypto';

/**
 * The retry schedule of outgoing webhooks (the OpenAPI `webhooks` section), in one place: attempt 1 immediately, then
 * each next attempt this long after the previous one failed. After the 6th failed attempt the
 * delivery is `failed`.
 */
export const RETRY_DELAYS_MS = [0, 60_000, 5 * 60_000, 15 * 60_000, 60 * 60_000, 4 * 60 * 60_000] as const;

export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length;

/** An endpoint whose every attempt failed for this long is disabled (the console warns and offers a replay). */
export const AUTO_DISABLE_AFTER_MS = 3 * 24 * 60 * 60 * 1000;

/** A delivery request is abandoned after this long (spec part 8). */
export const DELIVERY_TIMEOUT_MS = 10_000;

/** The first 1 KB of an answer is kept with each attempt. */
export const RESPONSE_EXCERPT_BYTES = 1024;

/** Each delay of the schedule is moved by up to this fraction either way, so deliveries that failed together (an outage) do not all come back at once. */
export const RETRY_JITTER = 0.1;

export interface RetryOptions {
  /** What the receiver's `Retry-After` asked for (on a 429 or 503), in ms from the failed attempt. */
  retryAfterMs?: number | null;
  /** A number in [0, 1); the jitter's source. */
  random?: () => number;
}

/**
 * How long after `attemptsMade` failed attempts the next one is due; null when none is left
 * (the delivery is `failed`). The schedule's delay, ±RETRY_JITTER; a receiver's Retry-After
 * that asks for longer is honoured up to the schedule's next delay, so a delivery never makes
 * more attempts or takes longer in all than the schedule allows.
 */
export function retryDelayMs(attemptsMade: number, opts: RetryOptions = {}): number | null {
  if (attemptsMade >= MAX_ATTEMPTS) return null;
  const base = RETRY_DELAYS_MS[attemptsMade]!;
  const random = (opts.random ?? Math.random)();
  const delay = Math.round(base * (1 + RETRY_JITTER * (2 * random - 1)));
  const asked = opts.retryAfterMs ?? null;
  if (asked === null || asked <= delay) return delay;
  return Math.max(delay, Math.min(asked, RETRY_DELAYS_MS[Math.min(attemptsMade + 1, MAX_ATTEMPTS - 1)]!));
}

/** When the next scheduled attempt is due after `attemptsMade` failed attempts, the last at `failedAt` (see retryDelayMs). */
export function nextAttemptAt(attemptsMade: number, failedAt: Date, opts: RetryOptions = {}): Date | null {
  const delay = retryDelayMs(attemptsMade, opts);
  return delay === null ? null : new Date(failedAt.getTime() + delay);
}

/**
 * A number in [0, 1) fixed by `seed`: a delivery's jitter for an attempt comes out the same
 * wherever it is computed (the stored next attempt and the wake scheduled for it).
 */
export function seededRandom(seed: string): () => number {
  const digest = createHash('sha256').update(seed).digest();
  return () => digest.readUInt32BE(0) / 2 ** 32;
}

/**
 * `Retry-After` of a 429 or 503 answer as ms after `at`: delay-seconds or an HTTP date
 * (RFC 9110 §10.2.3); null when absent, unreadable, or on any other status.
 */
export function retryAfterMsOf(statusCode: number | null, header: string | null | undefined, at: Date): number | null {
  if ((statusCode !== 429 && statusCode !== 503) || !header) return null;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? null : Math.max(0, date - at.getTime());
}
