import type { Owner } from '@pay/auth';
import { toJsonNumber } from '@pay/kit';
import { ApiError } from '@pay/schemas';
import type { InvoicingDeps } from '../deps';
import type { CustomerRow } from './payers';
import type { TrustLevel } from './trust';

export function customerJson(c: CustomerRow) {
  return {
    id: c.id,
    fullName: c.full_name,
    email: c.email,
    phone: c.phone,
    kycStatus: c.kyc_status,
    trustLevel: c.trust_level,
    totalPayments: c.total_payments,
    totalAmount: toJsonNumber(c.total_amount),
    lastPaymentAt: c.last_payment_at?.toISOString() ?? null,
    isBlocked: c.is_blocked,
    ...(c.is_blocked ? { blockedAt: c.blocked_at!.toISOString(), blockedReason: c.blocked_reason } : {}),
    createdAt: c.created_at.toISOString(),
  };
}

export function blockStateJson(c: CustomerRow) {
  return { id: c.id, isBlocked: c.is_blocked, blockedAt: c.blocked_at?.toISOString() ?? null, blockedReason: c.blocked_reason };
}

/** LIKE treats % and _ as wildcards; a search for them means the characters. */
function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export interface CustomerQuery {
  limit: number;
  offset: number;
  search?: string;
  kycStatus?: CustomerRow['kyc_status'];
  trustLevel?: TrustLevel;
}

/** Newest first; `search` matches part of the name, e-mail or phone, case-insensitively. */
export async function listCustomers(deps: InvoicingDeps, owner: Owner, q: CustomerQuery): Promise<{ rows: CustomerRow[]; total: number }> {
  const where = `merchant_id = $1 AND is_test = $2
    AND ($3::text IS NULL OR full_name ILIKE $3 OR email ILIKE $3 OR phone ILIKE $3)
    AND ($4::invoicing."KycStatus" IS NULL OR kyc_status = $4)
    AND ($5::invoicing."TrustLevel" IS NULL OR trust_level = $5)`;
  const values = [owner.merchantId, owner.isTest, q.search ? likePattern(q.search) : null, q.kycStatus ?? null, q.trustLevel ?? null];
  const [page, count] = await Promise.all([
    deps.sql.query<CustomerRow>(`SELECT * FROM invoicing.customers WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT $6 OFFSET $7`, [...values, q.limit, q.offset]),
    deps.sql.query<{ total: number }>(`SELECT count(*)::int AS total FROM invoicing.customers WHERE ${where}`, values),
  ]);
  return { rows: page.rows, total: count.rows[0]!.total };
}

/**
 * Blocks (or unblocks) one of the owner's customers. Blocking again keeps the first
 * `blockedAt` and takes the new reason. A payment in progress holds the customer's row lock,
 * so it either completes before the block or is refused after it.
 */
export async function setBlocked(deps: InvoicingDeps, owner: Owner, id: string, blocked: { reason: string | null } | false): Promise<CustomerRow> {
  const now = deps.clock.now();
  const res = await deps.sql.query<CustomerRow>(
    blocked
      ? `UPDATE invoicing.customers SET is_blocked = true, blocked_at = COALESCE(blocked_at, $4), blocked_reason = $5, updated_at = $4
          WHERE id = $1 AND merchant_id = $2 AND is_test = $3 RETURNING *`
      : `UPDATE invoicing.customers SET is_blocked = false, blocked_at = NULL, blocked_reason = NULL, updated_at = $4
          WHERE id = $1 AND merchant_id = $2 AND is_test = $3 RETURNING *`,
    blocked ? [id, owner.merchantId, owner.isTest, now, blocked.reason] : [id, owner.merchantId, owner.isTest, now],
  );
  if (!res.rows[0]) throw new ApiError('NOT_FOUND', `Customer ${id} not found`);
  return res.rows[0];
}
