import { randomUUID } from 'node:crypto';
import type { Money } from '@pay/kit';
import type { Tx } from '../transactions';
import type { InvoiceRow } from '../invoices/store';
import { trustLevelOf } from './trust';

export interface CustomerRow {
  id: string;
  merchant_id: string;
  is_test: boolean;
  full_name: string | null;
  email: string | null;
  phone: string | null;
  kyc_status: 'PENDING' | 'VERIFIED' | 'REJECTED';
  trust_level: 'NEW' | 'LEVEL_1' | 'LEVEL_2' | 'LEVEL_3';
  total_payments: number;
  total_amount: string;
  last_payment_at: Date | null;
  is_blocked: boolean;
  blocked_at: Date | null;
  blocked_reason: string | null;
  created_at: Date;
  updated_at: Date;
}

/**
 * The customer who pays this invoice, locked for the payment: the one bound to it, else the
 * merchant's customer (same mode) with its e-mail (compared lower-case), else its phone.
 * Null when the invoice names nobody known. A KYC decision finds its customer the same way.
 */
export async function lockPayer(
  tx: Tx,
  i: Pick<InvoiceRow, 'merchant_id' | 'is_test' | 'customer_id' | 'customer_email' | 'customer_phone'>,
): Promise<CustomerRow | null> {
  if (!i.customer_id && !i.customer_email && !i.customer_phone) return null;
  const rows = await tx.$queryRawUnsafe<CustomerRow[]>(
    `SELECT * FROM invoicing.customers
      WHERE merchant_id = $1::uuid AND is_test = $2 AND (id = $3::uuid OR email = lower($4) OR phone = $5)
      ORDER BY (id = $3::uuid) DESC NULLS LAST, (email = lower($4)) DESC NULLS LAST
      LIMIT 1 FOR UPDATE`,
    i.merchant_id,
    i.is_test,
    i.customer_id,
    i.customer_email,
    i.customer_phone,
  );
  return rows[0] ?? null;
}

/**
 * Counts a payment for the invoice's customer: creates the customer from the invoice's fields,
 * or updates the locked one (name to the latest given, e-mail and phone filled in when missing
 * and not another customer's), with totals and trust level. Returns the customer's id, or
 * null when the invoice names no e-mail or phone. When a concurrent first payment of the same
 * new customer wins the insert, the unique index refuses this one and the caller's
 * transaction is run again (`inTransaction`), which then finds that customer.
 */
export async function countPayment(tx: Tx, i: InvoiceRow, payer: CustomerRow | null, amount: Money, at: Date): Promise<string | null> {
  if (!payer) {
    if (!i.customer_email && !i.customer_phone) return null;
    const id = randomUUID();
    await tx.$executeRawUnsafe(
      `INSERT INTO invoicing.customers (id, merchant_id, is_test, full_name, email, phone, trust_level, total_payments, total_amount, last_payment_at, created_at, updated_at)
       VALUES ($1::uuid, $2::uuid, $3, $4, lower($5), $6, $7::invoicing."TrustLevel", 1, $8::numeric, $9, $9, $9)`,
      id,
      i.merchant_id,
      i.is_test,
      i.customer_name,
      i.customer_email,
      i.customer_phone,
      trustLevelOf(1, false),
      amount.toFixed(),
      at,
    );
    return id;
  }
  const payments = payer.total_payments + 1;
  await tx.$executeRawUnsafe(
    `UPDATE invoicing.customers c
        SET full_name = COALESCE($2, c.full_name),
            email = COALESCE(c.email, (SELECT lower($3) WHERE NOT EXISTS (
                      SELECT 1 FROM invoicing.customers o WHERE o.merchant_id = c.merchant_id AND o.is_test = c.is_test AND o.email = lower($3)))),
            phone = COALESCE(c.phone, (SELECT $4 WHERE NOT EXISTS (
                      SELECT 1 FROM invoicing.customers o WHERE o.merchant_id = c.merchant_id AND o.is_test = c.is_test AND o.phone = $4))),
            total_payments = $5,
            total_amount = c.total_amount + $6::numeric,
            last_payment_at = $7,
            trust_level = $8::invoicing."TrustLevel",
            updated_at = $7
      WHERE c.id = $1::uuid`,
    payer.id,
    i.customer_name,
    i.customer_email,
    i.customer_phone,
    payments,
    amount.toFixed(),
    at,
    trustLevelOf(payments, payer.kyc_status === 'VERIFIED'),
  );
  return payer.id;
}

/** A refund lowers the customer's `totalAmount` (money kept); payments counted and trust stay. */
export async function countRefund(tx: Tx, customerId: string, amount: Money, at: Date): Promise<void> {
  await tx.$executeRawUnsafe(
    `UPDATE invoicing.customers SET total_amount = total_amount - $2::numeric, updated_at = $3 WHERE id = $1::uuid`,
    customerId,
    amount.toFixed(),
    at,
  );
}
