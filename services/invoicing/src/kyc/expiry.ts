import type { InvoicingDeps } from '../deps';

/** Sessions expired per statement; a backlog drains in a loop. */
const KYC_EXPIRY_BATCH = 500;

/**
 * NOT_STARTED sessions past `expiresAt` become EXPIRED (no event: the spec has no kyc.expired).
 * Sessions whose documents are in are decided whatever the time. SKIP LOCKED and the re-check
 * let several processes share the work, and a submission racing the expiry holds the row lock
 * and wins, or finds the session past its time and is refused.
 */
export async function expireDueKycSessions(deps: Pick<InvoicingDeps, 'db' | 'clock'>): Promise<number> {
  let total = 0;
  for (;;) {
    const now = deps.clock.now();
    const n = await deps.db.$executeRawUnsafe(
      `UPDATE invoicing.kyc_sessions s SET status = 'EXPIRED', updated_at = $1
         FROM (SELECT id FROM invoicing.kyc_sessions WHERE status = 'NOT_STARTED' AND expires_at <= $1
                ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED) due
        WHERE s.id = due.id AND s.status = 'NOT_STARTED'`,
      now,
      KYC_EXPIRY_BATCH,
    );
    total += n;
    if (n < KYC_EXPIRY_BATCH) return total;
  }
}
