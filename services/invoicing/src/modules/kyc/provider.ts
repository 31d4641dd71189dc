import type { SniffedType } from '@pay/http';
import type { DeclineReason, DocumentType, KycLevel } from './schemas';

/** What the customer sent on the verification page. */
export interface KycSubmission {
  level: KycLevel;
  document: {
    type: DocumentType;
    number: string;
    /** ISO 3166-1 alpha-3. */
    country: string;
    firstName: string;
    lastName: string;
    middleName: string | null;
    /** `YYYY-MM-DD`. */
    dateOfBirth: string;
    issuedAt: string | null;
    expiresAt: string;
    /** The machine-readable zone as typed on the page, lines separated by newlines; null when none was typed (the provider reads the photo's own). */
    mrz: string | null;
  };
  files: {
    document: KycImage;
    selfie: KycImage;
    /** Advanced level only. */
    addressProof?: KycImage;
  };
}

export interface KycImage {
  type: SniffedType;
  bytes: Buffer;
}

/** One rule's outcome, kept on the session (`checks`) for the reviewer. */
export interface KycCheck {
  name: string;
  passed: boolean;
  /** A failed hard check declines; a failed soft one sends the session to a person. */
  hard: boolean;
  detail: string;
  /** The decline reason a failed check names where its name alone is not exact (a picture that reads but is too small: IMAGE_TOO_SMALL). */
  reason?: DeclineReason;
}

export interface KycVerdict {
  outcome: 'approve' | 'decline' | 'review';
  /** Why it was declined or sent to review; null when approved. */
  reason: string | null;
  /** 0..1, see SCORES_DOC. */
  faceMatchScore: number;
  /** The selfie's capture quality, sharpness × exposure (the API's `livenessScore`). */
  imageQualityScore: number;
  checks: KycCheck[];
}

/**
 * An identity-verification provider: takes what the customer sent, answers a verdict. The
 * shipped one is rule-based (RuleBasedKycProvider); a vendor's API would be another. It is
 * called by the queue worker outside any transaction, and may take its time.
 */
export interface KycProvider {
  readonly name: string;
  verify(submission: KycSubmission, now: Date): Promise<KycVerdict>;
}
