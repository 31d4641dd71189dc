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

/**
 * When the next scheduled attempt is due after `attemptsMade` failed attempts, the last at
 * `failedAt`; null when none is left and the delivery is `failed`.
 */
export function nextAttemptAt(attemptsMade: number, failedAt: Date): Date | null {
  if (attemptsMade >= MAX_ATTEMPTS) return null;
  return new Date(failedAt.getTime() + RETRY_DELAYS_MS[attemptsMade]!);
}
