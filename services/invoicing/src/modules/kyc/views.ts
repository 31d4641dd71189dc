import { toJsonNumber } from '@pay/money';
import type { KycSession } from './store';
import { V1_STATUS } from './schemas';
import { attemptsRemainingOf, awaitsRetry, declineReasonOf } from './decline-reasons';

/** The hosted verification page of a session; its random `sessionId` is the capability. */
export function verificationUrlOf(publicUrl: string, s: Pick<KycSession, 'sessionId'>): string {
  return `${publicUrl}/kyc/${s.sessionId}`;
}

const day = (d: Date) => d.toISOString().slice(0, 10);

/** Everything but the last 4 characters becomes `*` (all of a number of 4 or fewer). */
export function maskDocumentNumber(n: string): string {
  return n.length > 4 ? '*'.repeat(n.length - 4) + n.slice(-4) : '*'.repeat(n.length);
}

export const fullNameOf = (s: Pick<KycSession, 'firstName' | 'middleName' | 'lastName'>) =>
  [s.firstName, s.middleName, s.lastName].filter((p) => p && p.length > 0).join(' ');

/** `verification` of the list (subset) or of get (full); null unless APPROVED. */
function verificationJson(s: KycSession, full: boolean) {
  if (s.status !== 'APPROVED') return null;
  const subset = {
    firstName: s.firstName!,
    lastName: s.lastName!,
    fullName: fullNameOf(s),
    dateOfBirth: day(s.dateOfBirth!),
    documentType: s.documentType!,
    documentCountry: s.documentCountry!,
    faceMatchScore: toJsonNumber(s.faceMatchScore!),
    // The API's field name; what it measures is the selfie's capture quality (SCORES_DOC).
    livenessScore: toJsonNumber(s.imageQualityScore!),
    verifiedAt: s.verifiedAt!.toISOString(),
  };
  if (!full) return subset;
  return {
    ...subset,
    middleName: s.middleName,
    documentNumber: maskDocumentNumber(s.documentNumber!),
    documentIssuedAt: s.documentIssuedAt ? day(s.documentIssuedAt) : null,
    documentExpiresAt: day(s.documentExpiresAt!),
  };
}

function commonJson(s: KycSession) {
  return {
    id: s.id,
    sessionId: s.sessionId,
    status: s.status,
    invoiceId: s.invoiceId,
    customerEmail: s.customerEmail,
    customerPhone: s.customerPhone,
    customerId: s.customerRef,
    createdAt: s.createdAt.toISOString(),
  };
}

/** The decline reason and the attempts (additive to the documented session). */
function attemptsJson(s: KycSession) {
  return {
    declineReason: declineReasonOf(s),
    retryRequired: awaitsRetry(s),
    maxAttempts: s.maxAttempts,
    attemptsUsed: s.attempts,
    attemptsRemaining: attemptsRemainingOf(s),
  };
}

/** POST /api/v2/kyc/sessions: no `verification` (nothing is verified yet). */
export function createdKycSessionJson(s: KycSession, publicUrl: string) {
  return { ...commonJson(s), verificationUrl: verificationUrlOf(publicUrl, s), expiresAt: s.expiresAt.toISOString() };
}

/** GET /api/v2/kyc/sessions items: no `verificationUrl` or `expiresAt`; `verification` is the subset. */
export function kycSessionListItemJson(s: KycSession) {
  return { ...commonJson(s), verification: verificationJson(s, false) };
}

/** GET /api/v2/kyc/sessions/{id}: every field, `verification` in full (document number masked). */
export function kycSessionJson(s: KycSession, publicUrl: string) {
  return {
    ...commonJson(s),
    verificationUrl: verificationUrlOf(publicUrl, s),
    verification: verificationJson(s, true),
    expiresAt: s.expiresAt.toISOString(),
    ...attemptsJson(s),
  };
}

/** The v1 shape: lower-case statuses, `metadata` as given. */
export function kycSessionV1Json(s: KycSession, publicUrl: string) {
  return {
    id: s.id,
    level: s.level,
    status: V1_STATUS[s.status],
    verificationUrl: verificationUrlOf(publicUrl, s),
    metadata: (s.metadata ?? {}) as Record<string, unknown>,
    createdAt: s.createdAt.toISOString(),
    expiresAt: s.expiresAt.toISOString(),
    ...attemptsJson(s),
  };
}

/**
 * The `session` of a kyc.* event: v2 sessions in the v2 vocabulary, v1 sessions in the v1 shape
 * (their integrators read lower-case statuses and their own metadata).
 */
export function kycEventSessionJson(s: KycSession) {
  const updatedAt = s.updatedAt.toISOString();
  if (s.api === 'v1') {
    return { id: s.id, level: s.level, status: V1_STATUS[s.status], metadata: (s.metadata ?? {}) as Record<string, unknown>, reason: s.reason, updatedAt };
  }
  return {
    id: s.id,
    sessionId: s.sessionId,
    status: s.status,
    invoiceId: s.invoiceId,
    customerId: s.customerRef,
    customerEmail: s.customerEmail,
    customerPhone: s.customerPhone,
    reason: s.reason,
    updatedAt,
  };
}
