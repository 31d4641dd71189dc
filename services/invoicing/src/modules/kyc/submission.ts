import { Type, type Static } from '@sinclair/typebox';
import type { UploadedFiles, UploadSpec } from '@pay/http';
import { outboxMessage, writeOutbox } from '@pay/queue';
import { ApiError, StringEnum, type ErrorDetail } from '@pay/schemas';
import type { InvoicingDeps } from '../../deps';
import { inTransaction } from '../../transactions';
import type { KycSubmission } from './provider';
import { DOCUMENT_TYPES } from './schemas';
import { awaitsRetry } from './decline-reasons';
import { filesOfSession, lockKycSessionBySessionId, replaceKycFiles, updateKycSession, type KycSession } from './store';

/** Phone photos are 2–6 MB; 8 MB leaves room and bounds what Postgres keeps per file. */
export const MAX_KYC_FILE_BYTES = 8 * 1024 * 1024;

/** The page's files, typed by their bytes (a PDF is accepted for the proof of address only). */
export const KYC_UPLOAD: UploadSpec = {
  files: {
    document: { required: true, maxBytes: MAX_KYC_FILE_BYTES, types: ['image/jpeg', 'image/png', 'image/webp'] },
    selfie: { required: true, maxBytes: MAX_KYC_FILE_BYTES, types: ['image/jpeg', 'image/png', 'image/webp'] },
    addressProof: { required: false, maxBytes: MAX_KYC_FILE_BYTES, types: ['image/jpeg', 'image/png', 'image/webp', 'application/pdf'] },
  },
};

const Name = (max: number) => Type.String({ maxLength: max });
/** The document data form, as text: the handler's checks give the customer readable messages. */
export const KycDocumentForm = Type.Object(
  {
    documentType: StringEnum(DOCUMENT_TYPES),
    documentNumber: Name(40),
    documentCountry: Name(10),
    firstName: Name(100),
    lastName: Name(100),
    middleName: Type.Optional(Name(100)),
    dateOfBirth: Name(20),
    documentIssuedAt: Type.Optional(Name(20)),
    documentExpiresAt: Name(20),
    mrz: Type.Optional(Name(200)),
  },
  { additionalProperties: false },
);
export type KycDocumentFormValues = Static<typeof KycDocumentForm>;

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const isDate = (s: string) => DATE.test(s) && !Number.isNaN(Date.parse(`${s}T00:00:00Z`)) && new Date(`${s}T00:00:00Z`).toISOString().startsWith(s);
const NAME = /^[\p{L}][\p{L}' .-]*$/u;

/** Reads the form into the submission's document data, or lists every field to correct. */
export function readDocumentForm(f: KycDocumentFormValues): { document: KycSubmission['document'] } | { problems: ErrorDetail[] } {
  const problems: ErrorDetail[] = [];
  const text = (v: string | undefined) => (v ?? '').trim();
  const number = text(f.documentNumber).replace(/\s+/g, '').toUpperCase();
  const country = text(f.documentCountry).toUpperCase();
  const first = text(f.firstName);
  const last = text(f.lastName);
  const middle = text(f.middleName);
  const dob = text(f.dateOfBirth);
  const issued = text(f.documentIssuedAt);
  const expires = text(f.documentExpiresAt);
  const mrz = text(f.mrz);
  if (!/^[A-Z0-9]{5,20}$/.test(number)) problems.push({ field: 'documentNumber', message: 'letters and digits, 5 to 20' });
  if (!/^[A-Z]{3}$/.test(country)) problems.push({ field: 'documentCountry', message: 'three letters (ISO 3166-1 alpha-3), e.g. KAZ, RUS' });
  if (!NAME.test(first)) problems.push({ field: 'firstName', message: 'is required (letters)' });
  if (!NAME.test(last)) problems.push({ field: 'lastName', message: 'is required (letters)' });
  if (middle && !NAME.test(middle)) problems.push({ field: 'middleName', message: 'letters only' });
  if (!isDate(dob)) problems.push({ field: 'dateOfBirth', message: 'a date, YYYY-MM-DD' });
  if (issued && !isDate(issued)) problems.push({ field: 'documentIssuedAt', message: 'a date, YYYY-MM-DD' });
  if (!isDate(expires)) problems.push({ field: 'documentExpiresAt', message: 'a date, YYYY-MM-DD' });
  if (mrz && !/^[A-Za-z0-9<\s]{60,100}$/.test(mrz)) problems.push({ field: 'mrz', message: 'the 2 or 3 lines printed at the bottom of the page (A–Z, 0–9, <)' });
  if (problems.length > 0) return { problems };
  return {
    document: {
      type: f.documentType,
      number,
      country,
      firstName: first,
      lastName: last,
      middleName: middle || null,
      dateOfBirth: dob,
      issuedAt: issued || null,
      expiresAt: expires,
      mrz: mrz || null,
    },
  };
}

/**
 * Why the page cannot take documents for this session now, or null when it can: a session not
 * started, or one waiting for a retry after a declined attempt, before `expiresAt`.
 */
export function notOpenError(s: Pick<KycSession, 'status' | 'checkState' | 'expiresAt'>, now: Date): ApiError | null {
  if (s.status !== 'NOT_STARTED' && !awaitsRetry(s)) return new ApiError('INVALID_STATE', 'The documents of this verification were already sent');
  if (s.expiresAt.getTime() <= now.getTime()) return new ApiError('INVALID_STATE', 'This verification link has expired');
  return null;
}

/**
 * Takes the customer's documents: in one transaction, under the session's lock, it checks the
 * session is still open (see notOpenError), stores the files and the typed data (a retry's
 * replace the declined attempt's, whose reason, checks and scores are cleared), counts the
 * attempt, moves the session to IN_PROGRESS (CHECKING) and writes the check's job to the
 * outbox, so the check runs exactly when the submission is committed. Refusals write nothing.
 */
export async function submitKycDocuments(
  deps: Pick<InvoicingDeps, 'db' | 'clock' | 'kickOutbox'>,
  sessionId: string,
  form: KycDocumentFormValues,
  files: UploadedFiles,
): Promise<KycSession> {
  const read = readDocumentForm(form);
  if ('problems' in read) throw new ApiError('VALIDATION_ERROR', 'Check the document data', read.problems);
  const session = await inTransaction(deps.db, async (tx) => {
    const s = await lockKycSessionBySessionId(tx, sessionId);
    if (!s) throw new ApiError('NOT_FOUND', 'This verification link does not lead to a session');
    const now = deps.clock.now();
    const refusal = notOpenError(s, now);
    if (refusal) throw refusal;
    if (s.level === 'advanced' && !files.addressProof) {
      throw new ApiError('VALIDATION_ERROR', 'A proof of address is required', [{ field: 'addressProof', message: 'is required' }]);
    }
    const kinds = { document: files.document, selfie: files.selfie, address_proof: files.addressProof };
    await replaceKycFiles(
      tx,
      s.id,
      Object.entries(kinds)
        .filter(([, f]) => f !== undefined)
        .map(([kind, f]) => ({ kind, type: f!.type, bytes: f!.bytes })),
      now,
    );
    const d = read.document;
    const day = (v: string | null) => (v ? new Date(`${v}T00:00:00Z`) : null);
    const updated = await updateKycSession(tx, s.id, {
      status: 'IN_PROGRESS',
      checkState: 'CHECKING',
      documentType: d.type,
      documentNumber: d.number,
      documentCountry: d.country,
      firstName: d.firstName,
      lastName: d.lastName,
      middleName: d.middleName,
      dateOfBirth: day(d.dateOfBirth),
      documentIssuedAt: day(d.issuedAt),
      documentExpiresAt: day(d.expiresAt),
      mrz: d.mrz,
      addAttempt: true,
      reason: null,
      checks: null,
      faceMatchScore: null,
      imageQualityScore: null,
      decidedBy: null,
      submittedAt: now,
      updatedAt: now,
    });
    await writeOutbox(tx, outboxMessage('kycChecks', kycCheckJobId(updated), { sessionId: s.id }));
    return updated;
  });
  deps.kickOutbox();
  return session;
}

/** One check job per attempt: a job of the previous attempt still held by BullMQ must not swallow the next one's. */
export const kycCheckJobId = (s: { id: string; attempts: number }) => `${s.id}-${s.attempts}`;

/** The stored submission of a session, as the provider takes it. */
export async function loadSubmission(deps: Pick<InvoicingDeps, 'db'>, s: KycSession): Promise<KycSubmission> {
  const files = await filesOfSession(deps.db, s.id);
  const file = (kind: string) => {
    const f = files.find((x) => x.kind === kind);
    return f ? { type: f.type as KycSubmission['files']['document']['type'], bytes: Buffer.from(f.bytes) } : undefined;
  };
  const day = (d: Date | null) => (d ? d.toISOString().slice(0, 10) : null);
  return {
    level: s.level,
    document: {
      type: s.documentType as KycSubmission['document']['type'],
      number: s.documentNumber!,
      country: s.documentCountry!,
      firstName: s.firstName!,
      lastName: s.lastName!,
      middleName: s.middleName,
      dateOfBirth: day(s.dateOfBirth)!,
      issuedAt: day(s.documentIssuedAt),
      expiresAt: day(s.documentExpiresAt)!,
      mrz: s.mrz,
    },
    files: { document: file('document')!, selfie: file('selfie')!, addressProof: file('address_proof') },
  };
}
