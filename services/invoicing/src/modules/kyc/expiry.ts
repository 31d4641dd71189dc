import type { InvoicingDeps } from '../../deps';

/** Sessions expired per statement; a backlog drains in a loop. */
const KYC_EXPIRY_BATCH = 500;

/**
 * NOT_STARTED sessions past `expiresAt` become EXPIRED (no event: the documented events, OpenAPI `webhooks`, have no kyc.expired).
 * Sessions whose documents are in are decided whatever the time; one waiting for a retry ends
 * with its last decline at `expiresAt` (`declineUnretriedKycSessions`, kyc/decision.ts). SKIP LOCKED and the re-check
 * let several processes share the work, and a submission racing the expiry holds the row lock
 * and wins, or finds the session past its time and is refused.
 */
export async function expireDueKycSessions(deps: Pick<InvoicingDeps, 'tables' | 'clock'>): Promise<number> {
  let total = 0;
  for (;;) {
    const now = deps.clock.now();
    const due = deps.tables
      .selectFrom('kyc_sessions')
      .select('id')
      .where('status', '=', 'NOT_STARTED')
      .where('expires_at', '<=', now)
      .orderBy('expires_at')
      .limit(KYC_EXPIRY_BATCH)
      .forUpdate()
      .skipLocked();
    const res = await deps.tables
      .updateTable('kyc_sessions as s')
      .set({ status: 'EXPIRED', updated_at: now })
      .from(due.as('due'))
      .whereRef('s.id', '=', 'due.id')
      .where('s.status', '=', 'NOT_STARTED')
      .executeTakeFirst();
    const n = Number(res.numUpdatedRows);
    total += n;
    if (n < KYC_EXPIRY_BATCH) return total;
  }
}
