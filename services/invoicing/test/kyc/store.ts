import type { Selectable } from 'kysely';
import type { InvoicingQueries, Tables } from '../../src/db';

/**
 * The kyc module's test helper (its store's, for tests and the bench): what tests read and set on
 * `invoicing.kyc_sessions` and `invoicing.kyc_files` beside the API, without naming the tables
 * outside their owner.
 */

export type KycSessionColumns = Selectable<Tables.KycSession>;

/** One KYC session's row; throws when there is none. */
export function kycSessionRow(on: InvoicingQueries, id: string): Promise<KycSessionColumns> {
  return on.$kysely.selectFrom('kyc_sessions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

/** How many KYC sessions a merchant has. */
export async function countKycSessions(on: InvoicingQueries, merchantId: string): Promise<number> {
  const row = await on.$kysely.selectFrom('kyc_sessions').select((e) => e.fn.countAll<string>().as('n')).where('merchant_id', '=', merchantId).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** How many files (pictures) a KYC session keeps. */
export async function countKycFiles(on: InvoicingQueries, sessionId: string): Promise<number> {
  const row = await on.$kysely.selectFrom('kyc_files').select((e) => e.fn.countAll<string>().as('n')).where('session_id', '=', sessionId).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Moves a KYC session's expiry (e.g. into the past: due without waiting). */
export async function setKycSessionExpiresAt(on: InvoicingQueries, id: string, at: Date): Promise<void> {
  await on.$kysely.updateTable('kyc_sessions').set({ expires_at: at }).where('id', '=', id).execute();
}

/** Sets a KYC session's status as a process would have (e.g. EXPIRED by the expiry loop). */
export async function setKycSessionStatus(on: InvoicingQueries, id: string, status: Tables.KycSessionStatus): Promise<void> {
  await on.$kysely.updateTable('kyc_sessions').set({ status }).where('id', '=', id).execute();
}
