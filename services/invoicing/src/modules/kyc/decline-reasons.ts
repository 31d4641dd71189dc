import type { KycSession } from './store';
import type { KycCheck } from './provider';
import type { DeclineReason } from './schemas';

/** The first failed hard check names the reason (its own `reason` where it gives one); the check names are the rule-based provider's. */
function reasonOfCheck(name: string): DeclineReason {
  if (name === 'document_expiry') return 'DOCUMENT_EXPIRED';
  if (name === 'document_issue_date') return 'DOCUMENT_DATA_INVALID';
  if (name === 'mrz') return 'DOCUMENT_DATA_MISMATCH';
  if (name === 'age') return 'UNDERAGE';
  if (name === 'distinct_images') return 'SAME_IMAGE_TWICE';
  if (name === 'face_match') return 'FACE_MISMATCH';
  if (name.endsWith('_image')) return 'IMAGE_UNREADABLE';
  if (name.endsWith('_quality')) return 'IMAGE_QUALITY';
  if (name.endsWith('_face')) return 'FACE_NOT_FOUND';
  return 'OTHER';
}

/**
 * Reasons another attempt cannot change: the person's age (from a genuine document), and a
 * person's judgement. A decline for any other reason, with attempts left, asks the customer to
 * try again (check state RETRY) instead of ending the session.
 */
export const FINAL_DECLINE_REASONS: readonly DeclineReason[] = ['UNDERAGE', 'DECLINED_BY_REVIEWER'];

/** Whether a session waits for the customer's next attempt after a declined one. */
export const awaitsRetry = (s: Pick<KycSession, 'status' | 'checkState'>) => s.status === 'IN_PROGRESS' && s.checkState === 'RETRY';

/**
 * The code of the latest declined attempt: the final one of a DECLINED session, or the one a
 * session waiting for a retry shows its customer; null otherwise. A person's decline (the
 * console, not `auto:<provider>`) is the reviewer's.
 */
export function declineReasonOf(s: Pick<KycSession, 'status' | 'checkState' | 'checks' | 'decidedBy'>): DeclineReason | null {
  if (s.status !== 'DECLINED' && !awaitsRetry(s)) return null;
  if (s.decidedBy && !s.decidedBy.startsWith('auto')) return 'DECLINED_BY_REVIEWER';
  const failed = ((Array.isArray(s.checks) ? s.checks : []) as unknown as KycCheck[]).find((c) => c.hard && !c.passed);
  return failed ? (failed.reason ?? reasonOfCheck(failed.name)) : 'OTHER';
}

/** Attempts the customer still has: none once the session is over (decided or expired). */
export function attemptsRemainingOf(s: Pick<KycSession, 'status' | 'attempts' | 'maxAttempts'>): number {
  return s.status === 'NOT_STARTED' || s.status === 'IN_PROGRESS' ? Math.max(0, s.maxAttempts - s.attempts) : 0;
}
