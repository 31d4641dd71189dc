import type { Owner } from '@pay/auth';
import { toJsonNumber } from '@pay/money';
import { ApiError } from '@pay/schemas';
import type { InvoicingQueries } from '../../db';
import type { InvoicingDeps } from '../../deps';
import { customerNames, listOwnedCustomers, setOwnedCustomerBlocked, type CustomerRow } from './store';
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

export interface CustomerQuery {
  limit: number;
  offset: number;
  search?: string;
  kycStatus?: CustomerRow['kyc_status'];
  trustLevel?: TrustLevel;
}

/** Newest first; `search` matches part of the name, e-mail or phone, case-insensitively. */
export function listCustomers(deps: Pick<InvoicingDeps, 'db'>, owner: Owner, q: CustomerQuery): Promise<{ rows: CustomerRow[]; total: number }> {
  return listOwnedCustomers(deps.db, owner, q);
}

/**
 * Blocks (or unblocks) one of the owner's customers. Blocking again keeps the first
 * `blockedAt` and takes the new reason. A payment in progress holds the customer's row lock,
 * so it either completes before the block or is refused after it.
 */
export async function setBlocked(deps: Pick<InvoicingDeps, 'db' | 'clock'>, owner: Owner, id: string, blocked: { reason: string | null } | false): Promise<CustomerRow> {
  const row = await setOwnedCustomerBlocked(deps.db, owner, id, blocked, deps.clock.now());
  if (!row) throw new ApiError('NOT_FOUND', `Customer ${id} not found`);
  return row;
}

/** Customers' names by id, for the analytics module's top payers. */
export function customerNamesOf(on: InvoicingQueries, ids: string[]): Promise<Map<string, string | null>> {
  return customerNames(on, ids);
}
