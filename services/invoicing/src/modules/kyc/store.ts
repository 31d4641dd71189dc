import { createHash, randomUUID } from 'node:crypto';
import type { Owner } from '@pay/auth';
import { type InvoicingDb, type InvoicingQueries } from '../../db';
import { Prisma, type KycFile, type KycSession } from '../../generated/prisma/client';
import type { Tx } from '../../transactions';
import type { KycStatus } from './schemas';

/**
 * The statements on the KYC module's tables (`kyc_sessions`, `kyc_files`): the only file
 * that names them. Other modules and the channels call the KYC services, which call these.
 */

type Who = { merchantId: string; isTest: boolean };

export function insertKycSession(db: InvoicingDb, data: Prisma.KycSessionUncheckedCreateInput): Promise<KycSession> {
  return db.kycSession.create({ data });
}

/** One of the owner's sessions, or null. */
export function ownedKycSession(db: InvoicingDb, owner: Who, id: string): Promise<KycSession | null> {
  return db.kycSession.findFirst({ where: { id, merchantId: owner.merchantId, isTest: owner.isTest } });
}

/** Whether the owner has a session of that id. */
export async function ownsKycSession(db: InvoicingDb, owner: Who, id: string): Promise<boolean> {
  return (await db.kycSession.count({ where: { id, merchantId: owner.merchantId, isTest: owner.isTest } })) > 0;
}

export function kycSessionById(db: InvoicingDb, id: string): Promise<KycSession | null> {
  return db.kycSession.findUnique({ where: { id } });
}

/** A session by its page capability. */
export function kycSessionBySessionId(db: InvoicingDb, sessionId: string): Promise<KycSession | null> {
  return db.kycSession.findUnique({ where: { sessionId } });
}

/** Newest first, with the total for the pagination block. */
export async function listOwnedKycSessions(
  db: InvoicingDb,
  owner: Owner,
  q: { limit: number; offset: number; status?: KycStatus; invoiceId?: string },
): Promise<{ rows: KycSession[]; total: number }> {
  const where = {
    merchantId: owner.merchantId,
    isTest: owner.isTest,
    ...(q.status ? { status: q.status } : {}),
    ...(q.invoiceId ? { invoiceId: q.invoiceId } : {}),
  };
  const [rows, total] = await Promise.all([
    db.kycSession.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: q.limit, skip: q.offset }),
    db.kycSession.count({ where }),
  ]);
  return { rows, total };
}

/** The newest session bound to an invoice that is still open (not started, not past its time) or under way. */
export function openKycSessionOfInvoice(db: InvoicingDb, invoiceId: string, now: Date): Promise<KycSession | null> {
  return db.kycSession.findFirst({
    where: { invoiceId, OR: [{ status: 'NOT_STARTED', expiresAt: { gt: now } }, { status: 'IN_PROGRESS' }] },
    orderBy: { createdAt: 'desc' },
  });
}

/** The owner's sessions the automatic check left to a person, oldest submission first. */
export function sessionsInManualReview(db: InvoicingDb, owner: Owner, limit: number): Promise<KycSession[]> {
  return db.kycSession.findMany({
    where: { merchantId: owner.merchantId, isTest: owner.isTest, status: 'IN_PROGRESS', checkState: 'MANUAL_REVIEW' },
    orderBy: { submittedAt: 'asc' },
    take: limit,
  });
}

/** Sessions waiting for a retry past their time (at most 100, oldest first). */
export function unretriedKycSessionsDue(db: InvoicingDb, now: Date) {
  return db.kycSession.findMany({
    where: { status: 'IN_PROGRESS', checkState: 'RETRY', expiresAt: { lte: now } },
    select: { id: true, reason: true, decidedBy: true },
    orderBy: { expiresAt: 'asc' },
    take: 100,
  });
}

/** Sessions CHECKING since before `submittedBefore` (at most 1000, oldest first). */
export function staleCheckingKycSessions(db: InvoicingDb, submittedBefore: Date) {
  return db.kycSession.findMany({
    where: { checkState: 'CHECKING', submittedAt: { lt: submittedBefore } },
    select: { id: true, attempts: true },
    orderBy: { submittedAt: 'asc' },
    take: 1000,
  });
}

/** Locks a session (by id, of the owner when given) and reads it; null when it is not there. */
export async function lockKycSession(tx: Tx, id: string, owner?: Who): Promise<KycSession | null> {
  const locked = await tx.$kysely
    .selectFrom('kyc_sessions')
    .select('id')
    .where('id', '=', id)
    .$if(owner !== undefined, (s) => s.where('merchant_id', '=', owner!.merchantId).where('is_test', '=', owner!.isTest))
    .forUpdate()
    .executeTakeFirst();
  if (!locked) return null;
  return tx.kycSession.findUniqueOrThrow({ where: { id } });
}

/** Locks a session by its page capability and reads it; null when it is not there. */
export async function lockKycSessionBySessionId(tx: Tx, sessionId: string): Promise<KycSession | null> {
  const locked = await tx.$kysely.selectFrom('kyc_sessions').select('id').where('session_id', '=', sessionId).forUpdate().executeTakeFirst();
  if (!locked) return null;
  return tx.kycSession.findUniqueOrThrow({ where: { id: locked.id } });
}

export function updateKycSession(tx: Tx, id: string, data: Prisma.KycSessionUpdateInput): Promise<KycSession> {
  return tx.kycSession.update({ where: { id }, data });
}

/** The attempt's files replace any earlier attempt's. */
export async function replaceKycFiles(tx: Tx, sessionId: string, files: Array<{ kind: string; type: string; bytes: Buffer }>, now: Date): Promise<void> {
  await tx.kycFile.deleteMany({ where: { sessionId } });
  await tx.kycFile.createMany({
    data: files.map((f) => ({
      id: randomUUID(),
      sessionId,
      kind: f.kind,
      type: f.type,
      sha256: createHash('sha256').update(f.bytes).digest('hex'),
      bytes: new Uint8Array(f.bytes),
      createdAt: now,
    })),
  });
}

/** A session's uploaded files, by kind. */
export function filesOfSession(db: InvoicingDb, sessionId: string): Promise<KycFile[]> {
  return db.kycFile.findMany({ where: { sessionId }, orderBy: { kind: 'asc' } });
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
