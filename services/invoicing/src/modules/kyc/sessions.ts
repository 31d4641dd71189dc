import { randomBytes, randomUUID } from 'node:crypto';
import type { Owner } from '@pay/auth';
import { outboundUrlProblem } from '@pay/http';
import { ApiError } from '@pay/schemas';
import type { InvoicingDeps, KycDeps } from '../../deps';
import { selectInvoice, selectInvoiceById } from '../invoices/published';
import { filesOfSession, insertKycSession, kycSessionBySessionId, listOwnedKycSessions, openKycSessionOfInvoice, ownedKycSession, sessionsInManualReview, type KycSession } from './store';

/** The module's session and file types, for the channels (which do not import the store). */
export type { KycFile, KycSession } from './store';
import { isKycVerified, paymentLinkOf } from '../invoices/views';
import { DEFAULT_KYC_ATTEMPTS, type KycLevel, type KycStatus, type Language } from './schemas';

/** A session the customer has not finished by then expires (v1 says 24 h; v2 uses the same). */
export const KYC_SESSION_TTL_MS = 24 * 3_600_000;

/** `kyc_` and 24 URL-safe characters (144 random bits): unguessable, since it opens the page. */
export function newSessionId(): string {
  return `kyc_${randomBytes(18).toString('base64url')}`;
}

export interface NewKycSession {
  api: 'v1' | 'v2';
  level: KycLevel;
  /** The page's language as the merchant named it; absent: the spec's default (`ru`), and the page follows the browser first. */
  language?: Language;
  invoiceId?: string;
  customerEmail?: string;
  customerPhone?: string;
  customerRef?: string;
  returnUrl?: string;
  webhookUrl?: string;
  metadata?: Record<string, unknown>;
  maxAttempts?: number;
}

/** Outgoing URLs must not reach our own network unless the operator allows it. */
function assertOutboundUrl(deps: KycDeps, field: string, url: string | undefined): void {
  if (url === undefined) return;
  let problem = outboundUrlProblem(url, { allowPrivate: deps.config.ALLOW_PRIVATE_WEBHOOK_URLS });
  if (!problem && field === 'webhookUrl' && deps.config.NODE_ENV === 'production' && !url.startsWith('https://')) problem = 'must use https';
  if (problem) throw new ApiError('VALIDATION_FAILED', `${field} ${problem}`, [{ field, message: problem }]);
}

/**
 * Creates a session in NOT_STARTED. A bound invoice must be the caller's, in the key's mode
 * (anything else is "not found": another merchant's ids are not confirmed to exist); the
 * session takes the invoice's e-mail and phone when it names none, so its approval reaches
 * the invoice's customer.
 */
export async function createKycSession(deps: KycDeps, owner: Owner, input: NewKycSession): Promise<KycSession> {
  assertOutboundUrl(deps, 'webhookUrl', input.webhookUrl);
  let email = input.customerEmail ?? null;
  let phone = input.customerPhone ?? null;
  if (input.invoiceId) {
    const invoice = await selectInvoice(deps.db, owner, input.invoiceId);
    if (!invoice) {
      throw new ApiError('NOT_FOUND', `Invoice ${input.invoiceId} not found`, [{ field: 'invoiceId', message: 'is not an invoice of this merchant in this mode' }]);
    }
    email ??= invoice.customer_email;
    phone ??= invoice.customer_phone;
  }
  const now = deps.clock.now();
  return insertKycSession(deps.db, {
    id: randomUUID(),
    merchantId: owner.merchantId,
    isTest: owner.isTest,
    api: input.api,
    sessionId: newSessionId(),
    level: input.level,
    chosenLanguage: input.language ?? null,
    invoiceId: input.invoiceId ?? null,
    customerEmail: email,
    customerPhone: phone,
    customerRef: input.customerRef ?? null,
    returnUrl: input.returnUrl ?? null,
    webhookUrl: input.webhookUrl ?? null,
    metadata: input.metadata ?? null,
    maxAttempts: input.maxAttempts ?? DEFAULT_KYC_ATTEMPTS,
    expiresAt: new Date(now.getTime() + KYC_SESSION_TTL_MS),
    createdAt: now,
    updatedAt: now,
  });
}

/** One of the owner's sessions (of either API generation); 404 otherwise. */
export async function getKycSession(deps: Pick<InvoicingDeps, 'db'>, owner: Owner, id: string): Promise<KycSession> {
  const s = await ownedKycSession(deps.db, owner, id);
  if (!s) throw new ApiError('NOT_FOUND', `KYC session ${id} not found`);
  return s;
}

/** Newest first, with the total for the pagination block. */
export async function listKycSessions(
  deps: Pick<InvoicingDeps, 'db'>,
  owner: Owner,
  q: { limit: number; offset: number; status?: KycStatus; invoiceId?: string },
): Promise<{ rows: KycSession[]; total: number }> {
  return listOwnedKycSessions(deps.db, owner, q);
}

/** A session by its page capability (the public page has no other credential). */
export async function kycSessionByPageId(deps: Pick<InvoicingDeps, 'db'>, sessionId: string): Promise<KycSession> {
  const s = await kycSessionBySessionId(deps.db, sessionId);
  if (!s) throw new ApiError('NOT_FOUND', 'This verification link does not lead to a session');
  return s;
}

/**
 * The verification the hosted payment page sends a payer to when a `kycRequired` invoice is
 * not yet `kycVerified`: the newest session bound to the invoice that is
 * still open or under way, else a new v2 session bound to it, which returns to the payment
 * page and speaks its `language` (the payment page's). Null when the invoice needs no
 * verification (any more).
 */
export async function verificationForInvoice(deps: KycDeps, invoiceId: string, language: Language): Promise<KycSession | null> {
  const invoice = await selectInvoiceById(deps.db, invoiceId);
  if (!invoice) throw new ApiError('NOT_FOUND', 'This payment link does not lead to an invoice');
  const now = deps.clock.now();
  if (!invoice.kyc_required || isKycVerified(invoice) || invoice.status !== 'PENDING' || invoice.expires_at <= now) return null;
  const open = await openKycSessionOfInvoice(deps.db, invoiceId, now);
  if (open) return open;
  return createKycSession(deps, { merchantId: invoice.merchant_id, isTest: invoice.is_test }, {
    api: 'v2',
    level: 'basic',
    language,
    invoiceId,
    returnUrl: paymentLinkOf(deps.config.PUBLIC_URL, invoiceId),
  });
}

/** The owner's sessions waiting for a manual review (the console's queue), oldest first, at most `limit`. */
export function kycSessionsInReview(deps: Pick<InvoicingDeps, 'db'>, owner: Owner, limit: number): Promise<KycSession[]> {
  return sessionsInManualReview(deps.db, owner, limit);
}

/** The pictures a reviewer compares: the session's uploaded files, by kind. */
export function kycFilesForReview(deps: Pick<InvoicingDeps, 'db'>, sessionId: string) {
  return filesOfSession(deps.db, sessionId);
}
