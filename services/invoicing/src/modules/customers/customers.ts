import type { Owner } from '@pay/auth';
import { toJsonNumber } from '@pay/money';
import { ApiError } from '@pay/schemas';
import type { InvoicingDeps } from '../../deps';
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
export async function listCustomers(deps: Pick<InvoicingDeps, 'tables'>, owner: Owner, q: CustomerQuery): Promise<{ rows: CustomerRow[]; total: number }> {
  const pattern = q.search ? likePattern(q.search) : undefined;
  const matching = deps.tables
    .selectFrom('customers')
    .where('merchant_id', '=', owner.merchantId)
    .where('is_test', '=', owner.isTest)
    .$if(pattern !== undefined, (s) => s.where((eb) => eb.or([eb('full_name', 'ilike', pattern!), eb('email', 'ilike', pattern!), eb('phone', 'ilike', pattern!)])))
    .$if(q.kycStatus !== undefined, (s) => s.where('kyc_status', '=', q.kycStatus!))
    .$if(q.trustLevel !== undefined, (s) => s.where('trust_level', '=', q.trustLevel!));
  const [rows, count] = await Promise.all([
    matching.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(q.limit).offset(q.offset).execute(),
    matching.select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('total')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: count.total };
}

/**
 * Blocks (or unblocks) one of the owner's customers. Blocking again keeps the first
 * `blockedAt` and takes the new reason. A payment in progress holds the customer's row lock,
 * so it either completes before the block or is refused after it.
 */
export async function setBlocked(deps: Pick<InvoicingDeps, 'tables' | 'clock'>, owner: Owner, id: string, blocked: { reason: string | null } | false): Promise<CustomerRow> {
  const now = deps.clock.now();
  const row = await deps.tables
    .updateTable('customers')
    .set((eb) =>
      blocked
        ? { is_blocked: true, blocked_at: eb.fn.coalesce('blocked_at', eb.val(now)), blocked_reason: blocked.reason, updated_at: now }
        : { is_blocked: false, blocked_at: null, blocked_reason: null, updated_at: now },
    )
    .where('id', '=', id)
    .where('merchant_id', '=', owner.merchantId)
    .where('is_test', '=', owner.isTest)
    .returningAll()
    .executeTakeFirst();
  if (!row) throw new ApiError('NOT_FOUND', `Customer ${id} not found`);
  return row;
}
