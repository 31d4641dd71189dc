import type { Clock } from '@pay/runtime';
import { ApiError } from '@pay/schemas';
import { recordEvent } from '@pay/webhooks';
import type { InvoicingDeps } from '../../deps';
import { createVerifiedCustomer, lockPayer, setCustomerKyc } from '../customers/payers';
import { trustLevelOf } from '../customers/trust';
import { inTransaction, type Tx } from '../../transactions';
import { boundCustomerOf, markKycVerified } from '../invoices/published';
import { fullNameOf, kycEventSessionJson } from './views';
import { lockKycSession, ownsKycSession, unretriedKycSessionsDue, updateKycSession, type KycSession } from './store';
import type { KycCheck } from './provider';
import { declineReasonOf, FINAL_DECLINE_REASONS } from './decline-reasons';
import { invoicingEvents, type InvoicingEventKind } from '../../event-catalogue';

/** The KYC kinds of invoicing's event catalogue. */
export type KycEventKind = Extract<InvoicingEventKind, `kyc.${string}`>;

export interface KycDecision {
  outcome: 'approve' | 'decline' | 'review';
  reason: string | null;
  /** `auto` (the provider's check) or the reviewer (console: the key id). */
  by: string;
  /** The automatic check's results; a reviewer's decision keeps the check's. */
  scores?: { faceMatchScore: number; imageQualityScore: number };
  checks?: KycCheck[];
}

/**
 * Records an event of a session in the caller's transaction. A v1 session with its own
 * `webhookUrl` sends it there only (the `target` endpoint of packages/webhooks: same signing,
 * headers and retries as every delivery); every other session to the console webhooks.
 */
export async function emitKycEvent(tx: Tx, clock: Clock, s: KycSession, type: KycEventKind): Promise<void> {
  await recordEvent(tx, {
    source: invoicingEvents.source,
    owner: { merchantId: s.merchantId, isTest: s.isTest },
    type,
    object: { session: kycEventSessionJson(s) },
    at: clock.now().getTime(),
    targetUrl: s.webhookUrl ?? undefined,
  });
}

/** The check states a decision is made in: the automatic check, a person, or the end of a session waiting for a retry. */
export type DecidableState = 'CHECKING' | 'MANUAL_REVIEW' | 'RETRY';

/** Locks a session for a decision; `expect` is the check state the decision is for. */
async function lockForDecision(tx: Tx, id: string, expect: DecidableState, owner?: { merchantId: string; isTest: boolean }): Promise<KycSession | null> {
  const s = await lockKycSession(tx, id, owner);
  if (!s) return null;
  return s.status === 'IN_PROGRESS' && s.checkState === expect ? s : null;
}

/**
 * The customer's side of a decision, in its transaction. Approval: the customer (found as a
 * payment finds it: the bound invoice's customer, else by e-mail, else phone; created when
 * unknown, so their next invoices are kycVerified from creation) becomes VERIFIED and its
 * trust level is recomputed; a bound invoice becomes `kycVerified`. Decline: a known customer
 * becomes REJECTED (trust recomputed without KYC); nobody is created for a decline.
 */
async function applyToCustomer(tx: Tx, s: KycSession, approved: boolean, now: Date): Promise<void> {
  let boundCustomer: string | null = null;
  if (s.invoiceId) {
    const owner = { merchantId: s.merchantId, isTest: s.isTest };
    boundCustomer = approved ? await markKycVerified(tx, owner, s.invoiceId) : await boundCustomerOf(tx, owner, s.invoiceId);
  }
  const who = { merchant_id: s.merchantId, is_test: s.isTest, customer_id: boundCustomer, customer_email: s.customerEmail, customer_phone: s.customerPhone };
  const customer = await lockPayer(tx, who);
  const status = approved ? 'VERIFIED' : 'REJECTED';
  if (customer) {
    await setCustomerKyc(tx, customer.id, { status, trustLevel: trustLevelOf(customer.total_payments, approved), fullName: approved ? fullNameOf(s) : null, at: now });
    return;
  }
  if (!approved || (!s.customerEmail && !s.customerPhone)) return;
  // A concurrent first payment may create this customer first: the unique index refuses this
  // insert and inTransaction runs the decision again, which then finds and updates it.
  await createVerifiedCustomer(tx, { merchantId: s.merchantId, isTest: s.isTest, fullName: fullNameOf(s), email: s.customerEmail, phone: s.customerPhone, at: now });
}

const EVENT_OF: Record<KycDecision['outcome'], KycEventKind> = { approve: 'kyc.passed', decline: 'kyc.rejected', review: 'kyc.manual_review' };

/**
 * Whether a decline of the automatic check only ends this attempt: attempts remain and the
 * reason is one another attempt can change (a person's decline, or one at the end of a session
 * that waited for a retry, is final).
 */
function endsOnlyTheAttempt(s: KycSession, expect: DecidableState, d: KycDecision): boolean {
  if (d.outcome !== 'decline' || expect !== 'CHECKING' || s.attempts >= s.maxAttempts) return false;
  const reason = declineReasonOf({ status: 'DECLINED', checkState: 'DECIDED', checks: d.checks ?? [], decidedBy: d.by });
  return reason !== null && !FINAL_DECLINE_REASONS.includes(reason);
}

/**
 * Applies a decision to a session IN_PROGRESS, in one transaction with its event and its
 * effects: `approve` → APPROVED (`verifiedAt`; customer VERIFIED, invoice kycVerified),
 * `decline` → DECLINED (customer REJECTED), `review` → stays IN_PROGRESS in MANUAL_REVIEW.
 * A decline of the automatic check while attempts remain ends only the attempt: the session
 * stays IN_PROGRESS in RETRY with the attempt's reason and checks, nothing happens to the
 * customer and no event is sent (the merchant reads it in the session's GET); the customer's
 * next documents check again, and the last attempt's outcome is the session's.
 * Conditional on the session still being where the decision expects it (`expect`), so a
 * retried job or a second reviewer changes nothing twice. Returns the session, or null when
 * it was no longer there to decide.
 */
export async function decideKycSession(
  deps: Pick<InvoicingDeps, 'db' | 'clock'>,
  id: string,
  expect: DecidableState,
  d: KycDecision,
  owner?: { merchantId: string; isTest: boolean },
): Promise<KycSession | null> {
  return inTransaction(deps.db, async (tx) => {
    const s = await lockForDecision(tx, id, expect, owner);
    if (!s) return null;
    const now = deps.clock.now();
    const retry = endsOnlyTheAttempt(s, expect, d);
    const final = d.outcome !== 'review' && !retry;
    const updated = await updateKycSession(tx, id, {
      status: !final ? 'IN_PROGRESS' : d.outcome === 'approve' ? 'APPROVED' : 'DECLINED',
      checkState: final ? 'DECIDED' : retry ? 'RETRY' : 'MANUAL_REVIEW',
      reason: d.reason,
      ...(d.scores ? { faceMatchScore: d.scores.faceMatchScore, imageQualityScore: d.scores.imageQualityScore } : {}),
      ...(d.checks ? { checks: d.checks } : {}),
      ...(d.outcome === 'approve' ? { verifiedAt: now } : {}),
      // A declined attempt keeps who declined it (the page and the GET name its reason from it).
      ...(final || retry ? { decidedBy: d.by } : {}),
      ...(final ? { decidedAt: now } : {}),
      updatedAt: now,
    });
    if (retry) return updated;
    if (final) await applyToCustomer(tx, updated, d.outcome === 'approve', now);
    await emitKycEvent(tx, deps.clock, updated, EVENT_OF[d.outcome]);
    return updated;
  });
}

/**
 * A session whose customer did not try again before `expiresAt` ends with its last attempt's
 * decline: DECLINED, the customer REJECTED and `kyc.rejected`, as if it had been the last
 * attempt. Returns how many ended.
 */
export async function declineUnretriedKycSessions(deps: Pick<InvoicingDeps, 'db' | 'clock'>): Promise<number> {
  const due = await unretriedKycSessionsDue(deps.db, deps.clock.now());
  let ended = 0;
  for (const s of due) {
    if (await decideKycSession(deps, s.id, 'RETRY', { outcome: 'decline', reason: s.reason, by: s.decidedBy ?? 'auto' })) ended += 1;
  }
  return ended;
}

/** A reviewer's decision (console): only a session waiting in MANUAL_REVIEW, of the reviewer's merchant and mode. */
export async function reviewKycSession(
  deps: Pick<InvoicingDeps, 'db' | 'clock'>,
  owner: { merchantId: string; isTest: boolean },
  id: string,
  d: { approve: boolean; reason: string | null; reviewer: string },
): Promise<KycSession> {
  const s = await decideKycSession(deps, id, 'MANUAL_REVIEW', { outcome: d.approve ? 'approve' : 'decline', reason: d.reason, by: d.reviewer }, owner);
  if (s) return s;
  if (!(await ownsKycSession(deps.db, owner, id))) throw new ApiError('NOT_FOUND', `KYC session ${id} not found`);
  throw new ApiError('INVALID_STATE', `KYC session ${id} is not waiting for a review`);
}
