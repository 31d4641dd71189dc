import { createHash, randomUUID } from 'node:crypto';
import type { Owner } from '@pay/auth';
import type { Selectable, Updateable } from 'kysely';
import { type InvoicingQueries, type Tables } from '../../db';
import type { KycStatus } from './schemas';

/**
 * The statements on the KYC module's tables (`kyc_sessions`, `kyc_files`): the only file
 * that names them. Other modules and the channels call the KYC services, which call these.
 * They run on `on.$kysely` (the client, or `tx` inside a transaction) and hand the module its
 * domain types below, mapped from the rows in one place (`sessionOf`, `fileOf`).
 */

/** A KYC session as the module works with it (camelCase; the row of `kyc_sessions`). */
export interface KycSession {
  id: string;
  merchantId: string;
  isTest: boolean;
  api: Tables.ApiVersion;
  sessionId: string;
  status: Tables.KycSessionStatus;
  level: Tables.KycLevel;
  /** The API's `language`: the merchant's, else the default (`ru`); derived, not stored. */
  language: string;
  /** The language the merchant named at creation; null when it named none (the page then follows the browser). */
  chosenLanguage: string | null;
  invoiceId: string | null;
  customerEmail: string | null;
  customerPhone: string | null;
  customerRef: string | null;
  returnUrl: string | null;
  webhookUrl: string | null;
  /** The merchant's metadata, parsed JSON. */
  metadata: unknown;
  checkState: Tables.KycCheckState | null;
  maxAttempts: number;
  attempts: number;
  reason: string | null;
  /** The checks' outcomes (KycCheck[]), parsed JSON. */
  checks: unknown;
  firstName: string | null;
  lastName: string | null;
  middleName: string | null;
  /** Calendar days (`date` columns): midnight UTC of the day. */
  dateOfBirth: Date | null;
  documentType: string | null;
  documentNumber: string | null;
  documentCountry: string | null;
  documentIssuedAt: Date | null;
  documentExpiresAt: Date | null;
  mrz: string | null;
  /** numeric(4,3) as the exact decimal text Postgres holds (e.g. "0.800"). */
  faceMatchScore: string | null;
  imageQualityScore: string | null;
  expiresAt: Date;
  createdAt: Date;
  updatedAt: Date;
  submittedAt: Date | null;
  verifiedAt: Date | null;
  decidedAt: Date | null;
  decidedBy: string | null;
}

/** An uploaded picture of a session (the row of `kyc_files`). */
export interface KycFile {
  id: string;
  sessionId: string;
  kind: string;
  type: string;
  sha256: string;
  bytes: Buffer;
  createdAt: Date;
}

/** A session's language when its merchant named none (the spec's default). */
const DEFAULT_KYC_LANGUAGE = 'ru';

/** A new session: what the table does not default. */
export type NewKycSessionRow = Pick<
  KycSession,
  | 'id' | 'merchantId' | 'isTest' | 'api' | 'sessionId' | 'level' | 'chosenLanguage' | 'invoiceId' | 'customerEmail' | 'customerPhone'
  | 'customerRef' | 'returnUrl' | 'webhookUrl' | 'maxAttempts' | 'expiresAt' | 'createdAt' | 'updatedAt'
> & { metadata?: unknown };

/** A change to a session: the fields given are set (null clears); `addAttempt` counts one more attempt. */
export type KycSessionChange = Partial<
  Pick<
    KycSession,
    | 'status' | 'checkState' | 'reason' | 'firstName' | 'lastName' | 'middleName' | 'dateOfBirth' | 'documentType' | 'documentNumber'
    | 'documentCountry' | 'documentIssuedAt' | 'documentExpiresAt' | 'mrz' | 'submittedAt' | 'verifiedAt' | 'decidedAt' | 'decidedBy'
  >
> & {
  updatedAt: Date;
  checks?: unknown;
  faceMatchScore?: number | null;
  imageQualityScore?: number | null;
  addAttempt?: true;
};

type Db = InvoicingQueries['$kysely'];
type Who = { merchantId: string; isTest: boolean };
type DateCols = 'date_of_birth' | 'document_issued_at' | 'document_expires_at';
type SessionRow = Omit<Selectable<Tables.KycSession>, DateCols> & { [K in DateCols]: string | null };

const dayOf = (text: string | null): Date | null => (text === null ? null : new Date(`${text}T00:00:00Z`));
const dayText = (d: Date | null): string | null => (d === null ? null : d.toISOString().slice(0, 10));
const jsonText = (v: unknown): string | null => (v === null || v === undefined ? null : JSON.stringify(v));
const scoreText = (n: number | null): string | null => (n === null ? null : String(n));

/** Every column of a session, its `date` columns as their text (a day, not an instant). */
const selectSession = (db: Db) =>
  db
    .selectFrom('kyc_sessions')
    .selectAll()
    .select((eb) => [
      eb.cast<string | null>('date_of_birth', 'text').as('date_of_birth'),
      eb.cast<string | null>('document_issued_at', 'text').as('document_issued_at'),
      eb.cast<string | null>('document_expires_at', 'text').as('document_expires_at'),
    ]);

/** The one mapping of a `kyc_sessions` row to the module's KycSession. */
function sessionOf(r: SessionRow): KycSession {
  return {
    id: r.id,
    merchantId: r.merchant_id,
    isTest: r.is_test,
    api: r.api,
    sessionId: r.session_id,
    status: r.status,
    level: r.level,
    language: r.chosen_language ?? DEFAULT_KYC_LANGUAGE,
    chosenLanguage: r.chosen_language,
    invoiceId: r.invoice_id,
    customerEmail: r.customer_email,
    customerPhone: r.customer_phone,
    customerRef: r.customer_ref,
    returnUrl: r.return_url,
    webhookUrl: r.webhook_url,
    metadata: r.metadata ?? null,
    checkState: r.check_state,
    maxAttempts: r.max_attempts,
    attempts: r.attempts,
    reason: r.reason,
    checks: r.checks ?? null,
    firstName: r.first_name,
    lastName: r.last_name,
    middleName: r.middle_name,
    dateOfBirth: dayOf(r.date_of_birth),
    documentType: r.document_type,
    documentNumber: r.document_number,
    documentCountry: r.document_country,
    documentIssuedAt: dayOf(r.document_issued_at),
    documentExpiresAt: dayOf(r.document_expires_at),
    mrz: r.mrz,
    faceMatchScore: r.face_match_score,
    imageQualityScore: r.image_quality_score,
    expiresAt: r.expires_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    submittedAt: r.submitted_at,
    verifiedAt: r.verified_at,
    decidedAt: r.decided_at,
    decidedBy: r.decided_by,
  };
}

function fileOf(r: Selectable<Tables.KycFile>): KycFile {
  return { id: r.id, sessionId: r.session_id, kind: r.kind, type: r.type, sha256: r.sha256, bytes: Buffer.from(r.bytes), createdAt: r.created_at };
}

/** The columns a change sets. */
function changeOf(c: KycSessionChange): Updateable<Tables.KycSession> {
  const set: Updateable<Tables.KycSession> = { updated_at: c.updatedAt };
  if (c.status !== undefined) set.status = c.status;
  if (c.checkState !== undefined) set.check_state = c.checkState;
  if (c.reason !== undefined) set.reason = c.reason;
  if (c.firstName !== undefined) set.first_name = c.firstName;
  if (c.lastName !== undefined) set.last_name = c.lastName;
  if (c.middleName !== undefined) set.middle_name = c.middleName;
  if (c.dateOfBirth !== undefined) set.date_of_birth = dayText(c.dateOfBirth);
  if (c.documentType !== undefined) set.document_type = c.documentType;
  if (c.documentNumber !== undefined) set.document_number = c.documentNumber;
  if (c.documentCountry !== undefined) set.document_country = c.documentCountry;
  if (c.documentIssuedAt !== undefined) set.document_issued_at = dayText(c.documentIssuedAt);
  if (c.documentExpiresAt !== undefined) set.document_expires_at = dayText(c.documentExpiresAt);
  if (c.mrz !== undefined) set.mrz = c.mrz;
  if (c.checks !== undefined) set.checks = jsonText(c.checks);
  if (c.faceMatchScore !== undefined) set.face_match_score = scoreText(c.faceMatchScore);
  if (c.imageQualityScore !== undefined) set.image_quality_score = scoreText(c.imageQualityScore);
  if (c.submittedAt !== undefined) set.submitted_at = c.submittedAt;
  if (c.verifiedAt !== undefined) set.verified_at = c.verifiedAt;
  if (c.decidedAt !== undefined) set.decided_at = c.decidedAt;
  if (c.decidedBy !== undefined) set.decided_by = c.decidedBy;
  return set;
}

export async function insertKycSession(on: InvoicingQueries, s: NewKycSessionRow): Promise<KycSession> {
  await on.$kysely
    .insertInto('kyc_sessions')
    .values({
      id: s.id,
      merchant_id: s.merchantId,
      is_test: s.isTest,
      api: s.api,
      session_id: s.sessionId,
      level: s.level,
      chosen_language: s.chosenLanguage,
      invoice_id: s.invoiceId,
      customer_email: s.customerEmail,
      customer_phone: s.customerPhone,
      customer_ref: s.customerRef,
      return_url: s.returnUrl,
      webhook_url: s.webhookUrl,
      metadata: jsonText(s.metadata),
      max_attempts: s.maxAttempts,
      expires_at: s.expiresAt,
      created_at: s.createdAt,
      updated_at: s.updatedAt,
    })
    .execute();
  return (await kycSessionById(on, s.id))!;
}

/** One of the owner's sessions, or null. */
export async function ownedKycSession(on: InvoicingQueries, owner: Who, id: string): Promise<KycSession | null> {
  const r = await selectSession(on.$kysely).where('id', '=', id).where('merchant_id', '=', owner.merchantId).where('is_test', '=', owner.isTest).executeTakeFirst();
  return r ? sessionOf(r) : null;
}

/** Whether the owner has a session of that id. */
export async function ownsKycSession(on: InvoicingQueries, owner: Who, id: string): Promise<boolean> {
  const r = await on.$kysely.selectFrom('kyc_sessions').select('id').where('id', '=', id).where('merchant_id', '=', owner.merchantId).where('is_test', '=', owner.isTest).executeTakeFirst();
  return r !== undefined;
}

export async function kycSessionById(on: InvoicingQueries, id: string): Promise<KycSession | null> {
  const r = await selectSession(on.$kysely).where('id', '=', id).executeTakeFirst();
  return r ? sessionOf(r) : null;
}

/** A session by its page capability. */
export async function kycSessionBySessionId(on: InvoicingQueries, sessionId: string): Promise<KycSession | null> {
  const r = await selectSession(on.$kysely).where('session_id', '=', sessionId).executeTakeFirst();
  return r ? sessionOf(r) : null;
}

/** Newest first, with the total for the pagination block. */
export async function listOwnedKycSessions(
  on: InvoicingQueries,
  owner: Owner,
  q: { limit: number; offset: number; status?: KycStatus; invoiceId?: string },
): Promise<{ rows: KycSession[]; total: number }> {
  const db = on.$kysely;
  const [rows, count] = await Promise.all([
    selectSession(db)
      .where('merchant_id', '=', owner.merchantId)
      .where('is_test', '=', owner.isTest)
      .$if(q.status !== undefined, (w) => w.where('status', '=', q.status!))
      .$if(q.invoiceId !== undefined, (w) => w.where('invoice_id', '=', q.invoiceId!))
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(q.limit)
      .offset(q.offset)
      .execute(),
    db
      .selectFrom('kyc_sessions')
      .select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('total'))
      .where('merchant_id', '=', owner.merchantId)
      .where('is_test', '=', owner.isTest)
      .$if(q.status !== undefined, (w) => w.where('status', '=', q.status!))
      .$if(q.invoiceId !== undefined, (w) => w.where('invoice_id', '=', q.invoiceId!))
      .executeTakeFirstOrThrow(),
  ]);
  return { rows: rows.map(sessionOf), total: count.total };
}

/** The newest session bound to an invoice that is still open (not started, not past its time) or under way. */
export async function openKycSessionOfInvoice(on: InvoicingQueries, invoiceId: string, now: Date): Promise<KycSession | null> {
  const r = await selectSession(on.$kysely)
    .where('invoice_id', '=', invoiceId)
    .where((eb) => eb.or([eb.and([eb('status', '=', 'NOT_STARTED'), eb('expires_at', '>', now)]), eb('status', '=', 'IN_PROGRESS')]))
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  return r ? sessionOf(r) : null;
}

/** The owner's sessions the automatic check left to a person, oldest submission first. */
export async function sessionsInManualReview(on: InvoicingQueries, owner: Owner, limit: number): Promise<KycSession[]> {
  const rows = await selectSession(on.$kysely)
    .where('merchant_id', '=', owner.merchantId)
    .where('is_test', '=', owner.isTest)
    .where('status', '=', 'IN_PROGRESS')
    .where('check_state', '=', 'MANUAL_REVIEW')
    .orderBy('submitted_at', 'asc')
    .limit(limit)
    .execute();
  return rows.map(sessionOf);
}

/** Sessions waiting for a retry past their time (at most 100, oldest first). */
export async function unretriedKycSessionsDue(on: InvoicingQueries, now: Date): Promise<Array<Pick<KycSession, 'id' | 'reason' | 'decidedBy'>>> {
  const rows = await on.$kysely
    .selectFrom('kyc_sessions')
    .select(['id', 'reason', 'decided_by'])
    .where('status', '=', 'IN_PROGRESS')
    .where('check_state', '=', 'RETRY')
    .where('expires_at', '<=', now)
    .orderBy('expires_at', 'asc')
    .limit(100)
    .execute();
  return rows.map((r) => ({ id: r.id, reason: r.reason, decidedBy: r.decided_by }));
}

/** Sessions CHECKING since before `submittedBefore` (at most 1000, oldest first). */
export async function staleCheckingKycSessions(on: InvoicingQueries, submittedBefore: Date): Promise<Array<Pick<KycSession, 'id' | 'attempts'>>> {
  return on.$kysely
    .selectFrom('kyc_sessions')
    .select(['id', 'attempts'])
    .where('check_state', '=', 'CHECKING')
    .where('submitted_at', '<', submittedBefore)
    .orderBy('submitted_at', 'asc')
    .limit(1000)
    .execute();
}

/** Locks a session (by id, of the owner when given) and reads it; null when it is not there. */
export async function lockKycSession(tx: InvoicingQueries, id: string, owner?: Who): Promise<KycSession | null> {
  const r = await selectSession(tx.$kysely)
    .where('id', '=', id)
    .$if(owner !== undefined, (s) => s.where('merchant_id', '=', owner!.merchantId).where('is_test', '=', owner!.isTest))
    .forUpdate()
    .executeTakeFirst();
  return r ? sessionOf(r) : null;
}

/** Locks a session by its page capability and reads it; null when it is not there. */
export async function lockKycSessionBySessionId(tx: InvoicingQueries, sessionId: string): Promise<KycSession | null> {
  const r = await selectSession(tx.$kysely).where('session_id', '=', sessionId).forUpdate().executeTakeFirst();
  return r ? sessionOf(r) : null;
}

/** Applies the change and reads the session back (it must be there: the caller holds its lock). */
export async function updateKycSession(tx: InvoicingQueries, id: string, change: KycSessionChange): Promise<KycSession> {
  await tx.$kysely
    .updateTable('kyc_sessions')
    .set(changeOf(change))
    .$if(change.addAttempt === true, (u) => u.set((eb) => ({ attempts: eb('attempts', '+', 1) })))
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  const r = await selectSession(tx.$kysely).where('id', '=', id).executeTakeFirstOrThrow();
  return sessionOf(r);
}

/** The attempt's files replace any earlier attempt's. */
export async function replaceKycFiles(tx: InvoicingQueries, sessionId: string, files: Array<{ kind: string; type: string; bytes: Buffer }>, now: Date): Promise<void> {
  await tx.$kysely.deleteFrom('kyc_files').where('session_id', '=', sessionId).execute();
  if (files.length === 0) return;
  await tx.$kysely
    .insertInto('kyc_files')
    .values(
      files.map((f) => ({
        id: randomUUID(),
        session_id: sessionId,
        kind: f.kind,
        type: f.type,
        sha256: createHash('sha256').update(f.bytes).digest('hex'),
        bytes: Buffer.from(f.bytes),
        created_at: now,
      })),
    )
    .execute();
}

/** A session's uploaded files, by kind. */
export async function filesOfSession(on: InvoicingQueries, sessionId: string): Promise<KycFile[]> {
  const rows = await on.$kysely.selectFrom('kyc_files').selectAll().where('session_id', '=', sessionId).orderBy('kind', 'asc').execute();
  return rows.map(fileOf);
}

/**
 * NOT_STARTED sessions past `now` become EXPIRED, at most `batch` in one statement; SKIP
 * LOCKED and the re-check let several processes share the work. Returns how many.
 */
export async function expireNotStartedKycSessions(on: InvoicingQueries, now: Date, batch: number): Promise<number> {
  const tables = on.$kysely;
  const due = tables
    .selectFrom('kyc_sessions')
    .select('id')
    .where('status', '=', 'NOT_STARTED')
    .where('expires_at', '<=', now)
    .orderBy('expires_at')
    .limit(batch)
    .forUpdate()
    .skipLocked();
  const res = await tables
    .updateTable('kyc_sessions as s')
    .set({ status: 'EXPIRED', updated_at: now })
    .from(due.as('due'))
    .whereRef('s.id', '=', 'due.id')
    .where('s.status', '=', 'NOT_STARTED')
    .executeTakeFirst();
  return Number(res.numUpdatedRows);
}
