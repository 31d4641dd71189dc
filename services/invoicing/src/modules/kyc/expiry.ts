import type { InvoicingDeps } from '../../deps';
import { expireNotStartedKycSessions } from './store';

/** Sessions expired per statement; a backlog drains in a loop. */
const KYC_EXPIRY_BATCH = 500;

/**
 * NOT_STARTED sessions past `expiresAt` become EXPIRED (no event: the documented events, OpenAPI `webhooks`, have no kyc.expired).
 * Sessions whose documents are in are decided whatever the time; one waiting for a retry ends
 * with its last decline at `expiresAt` (`declineUnretriedKycSessions`, kyc/decision.ts). SKIP LOCKED and the re-check
 * let several processes share the work, and a submission racing the expiry holds the row lock
 * and wins, or finds the session past its time and is refused.
 */
export async function expireDueKycSessions(deps: Pick<InvoicingDeps, 'db' | 'clock'>): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await expireNotStartedKycSessions(deps.db, deps.clock.now(), KYC_EXPIRY_BATCH);
    total += n;
    if (n < KYC_EXPIRY_BATCH) return total;
  }
}
