/**
 * Parts of this process stuck in a way only a restart ends (a queue worker that stopped taking
 * jobs while its Redis answers), by name, with why. While any is, /healthz answers 503 naming
 * them, so an orchestrator's liveness probe restarts the process (everything it holds is in
 * Postgres and Redis), and the `process_stuck` gauge (metrics.ts) says which.
 */
const stuck = new Map<string, string>();

export function markStuck(part: string, reason: string): void {
  stuck.set(part, reason);
}

/** The part moves again (or is gone): it no longer asks for a restart. */
export function clearStuck(part: string): void {
  stuck.delete(part);
}

/** The stuck parts and why, for /healthz. */
export function stuckParts(): Record<string, string> {
  return Object.fromEntries(stuck);
}
