import { randomUUID } from 'node:crypto';
import { sql, type ExpressionBuilder } from 'kysely';
import type { Owner } from '@pay/auth';
import type { Money } from '@pay/money';
import { type InvoicingQueries, type Tables } from '../../db';
import { trustLevelOf } from './trust';

/*
 * The statements on the customers module's table (`customers`): the only file that names it.
 * Other modules call the module's exports (payers.ts, customers.ts), which hand these on; the
 * invoices store joins a customer onto its invoice reads through `invoiceCustomer` and
 * `customerKycVerifiedOf`, so its hot reads stay one statement.
 */

/** An e-mail as customers store it: lower-cased by Postgres (`lower`), as every comparison does. */
const lowered = (email: string | null) => sql<string | null>`lower(${email})`;

/**
 * A customer as the rest of the service sees it, declared here rather than derived from the
 * generated table, so a renamed column fails the type check in this store only.
 */
export interface CustomerRow {
  id: string;
  merchant_id: string;
  is_test: boolean;
  full_name: string | null;
  email: string | null;
  phone: string | null;
  kyc_status: Tables.KycStatus;
  trust_level: Tables.TrustLevel;
  total_payments: number;
  /** Paid amounts less refunds: numeric text. */
  total_amount: string;
  last_payment_at: Date | null;
  is_blocked: boolean;
  blocked_at: Date | null;
  blocked_reason: string | null;
  created_at: Date;
  updated_at: Date;
}

/** Who pays an invoice, as the invoice names them (its bound customer, e-mail, phone) in the merchant's mode. */
export interface PayerRef {
  merchant_id: string;
  is_test: boolean;
  customer_id: string | null;
  customer_email: string | null;
  customer_phone: string | null;
}

/**
 * The customer who pays this invoice, locked for the payment: the one bound to it, else the
 * merchant's customer (same mode) with its e-mail (compared lower-case), else its phone.
 * Null when the invoice names nobody known. A KYC decision finds its customer the same way.
 */
export async function lockPayer(tx: InvoicingQueries, i: PayerRef): Promise<CustomerRow | null> {
  if (!i.customer_id && !i.customer_email && !i.customer_phone) return null;
  const email = lowered(i.customer_email);
  const row = await tx.$kysely
    .selectFrom('customers')
    .selectAll()
    .where('merchant_id', '=', i.merchant_id)
    .where('is_test', '=', i.is_test)
    .where((eb) => eb.or([eb('id', '=', i.customer_id), eb('email', '=', email), eb('phone', '=', i.customer_phone)]))
    .orderBy((eb) => eb('id', '=', i.customer_id), (o) => o.desc().nullsLast())
    .orderBy((eb) => eb('email', '=', email), (o) => o.desc().nullsLast())
    .limit(1)
    .forUpdate()
    .executeTakeFirst();
  return row ?? null;
}

/**
 * Counts a payment for the invoice's customer: creates the customer from the invoice's fields,
 * or updates the locked one (name to the latest given, e-mail and phone filled in when missing
 * and not another customer's), with totals and trust level. Returns the customer's id, or
 * null when the invoice names no e-mail or phone. When a concurrent first payment of the same
 * new customer wins the insert, the unique index refuses this one and the caller's
 * transaction is run again (`inTransaction`), which then finds that customer.
 */
export async function countPayment(tx: InvoicingQueries, i: PayerRef & { customer_name: string | null }, payer: CustomerRow | null, amount: Money, at: Date): Promise<string | null> {
  const db = tx.$kysely;
  const email = lowered(i.customer_email);
  if (!payer) {
    if (!i.customer_email && !i.customer_phone) return null;
    const id = randomUUID();
    await db
      .insertInto('customers')
      .values({
        id,
        merchant_id: i.merchant_id,
        is_test: i.is_test,
        full_name: i.customer_name,
        email,
        phone: i.customer_phone,
        trust_level: trustLevelOf(1, false),
        total_payments: 1,
        total_amount: amount.toFixed(),
        last_payment_at: at,
        created_at: at,
        updated_at: at,
      })
      .execute();
    return id;
  }
  const payments = payer.total_payments + 1;
  // Another customer of the merchant may hold this e-mail or phone already: then it is not copied.
  const other = () => db.selectFrom('customers as o').select('o.id').where('o.merchant_id', '=', payer.merchant_id).where('o.is_test', '=', payer.is_test);
  const [emailTaken, phoneTaken] = await Promise.all([
    i.customer_email && !payer.email ? other().where('o.email', '=', email).executeTakeFirst() : undefined,
    i.customer_phone && !payer.phone ? other().where('o.phone', '=', i.customer_phone).executeTakeFirst() : undefined,
  ]);
  await db
    .updateTable('customers')
    .set((eb) => ({
      full_name: i.customer_name ?? payer.full_name,
      email: payer.email ?? (emailTaken ? null : email),
      phone: payer.phone ?? (phoneTaken ? null : i.customer_phone),
      total_payments: payments,
      total_amount: eb('total_amount', '+', eb.cast<string>(eb.val(amount.toFixed()), 'numeric')),
      last_payment_at: at,
      trust_level: trustLevelOf(payments, payer.kyc_status === 'VERIFIED'),
      updated_at: at,
    }))
    .where('id', '=', payer.id)
    .execute();
  return payer.id;
}

/** A refund lowers the customer's `totalAmount` (money kept); payments counted and trust stay. */
export async function countRefund(tx: InvoicingQueries, customerId: string, amount: Money, at: Date): Promise<void> {
  await tx.$kysely
    .updateTable('customers')
    .set((eb) => ({ total_amount: eb('total_amount', '-', eb.cast<string>(eb.val(amount.toFixed()), 'numeric')), updated_at: at }))
    .where('id', '=', customerId)
    .execute();
}

/** A KYC decision on a known customer: its status, trust level, and the name the session gave when it had none. */
export async function setCustomerKyc(tx: InvoicingQueries, id: string, d: { status: Tables.KycStatus; trustLevel: Tables.TrustLevel; fullName: string | null; at: Date }): Promise<void> {
  await tx.$kysely
    .updateTable('customers')
    .set((eb) => ({ kyc_status: d.status, trust_level: d.trustLevel, full_name: eb.fn.coalesce('full_name', eb.val(d.fullName)), updated_at: d.at }))
    .where('id', '=', id)
    .execute();
}

/**
 * A customer first known by an approved KYC session, so their next invoices are kycVerified
 * from creation. A concurrent first payment may create them first: the unique index refuses
 * this insert and `inTransaction` runs the decision again, which then finds and updates them.
 */
export async function createVerifiedCustomer(tx: InvoicingQueries, c: { merchantId: string; isTest: boolean; fullName: string | null; email: string | null; phone: string | null; at: Date }): Promise<void> {
  await tx.$kysely
    .insertInto('customers')
    .values({
      id: randomUUID(),
      merchant_id: c.merchantId,
      is_test: c.isTest,
      full_name: c.fullName,
      email: lowered(c.email),
      phone: c.phone,
      kyc_status: 'VERIFIED',
      trust_level: trustLevelOf(0, true),
      created_at: c.at,
      updated_at: c.at,
    })
    .execute();
}

/** LIKE treats % and _ as wildcards; a search for them means the characters. */
function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** Newest first; `search` matches part of the name, e-mail or phone, case-insensitively. */
export async function listOwnedCustomers(
  on: InvoicingQueries,
  owner: Owner,
  q: { limit: number; offset: number; search?: string; kycStatus?: CustomerRow['kyc_status']; trustLevel?: Tables.TrustLevel },
): Promise<{ rows: CustomerRow[]; total: number }> {
  const db = on.$kysely;
  const pattern = q.search ? likePattern(q.search) : undefined;
  const matching = db
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

/** Blocks (or unblocks) one of the owner's customers; blocking again keeps the first `blocked_at`. Null when not the owner's. */
export async function setOwnedCustomerBlocked(on: InvoicingQueries, owner: Owner, id: string, blocked: { reason: string | null } | false, now: Date): Promise<CustomerRow | null> {
  const db = on.$kysely;
  const row = await db
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
  return row ?? null;
}

/** An expression builder over a query whose invoice is aliased `i` (the invoices store's reads). */
export type InvoiceEb = ExpressionBuilder<Tables.DB & { i: Tables.Invoice }, 'i'>;

/** Whether the merchant's customer with the invoice's e-mail or phone has passed KYC (a column `customer_kyc_verified`). */
export const customerKycVerifiedOf = (eb: InvoiceEb) =>
  eb
    .exists(
      eb
        .selectFrom('customers as c')
        .select(sql.lit(1).as('one'))
        .whereRef('c.merchant_id', '=', 'i.merchant_id')
        .whereRef('c.is_test', '=', 'i.is_test')
        .where('c.kyc_status', '=', 'VERIFIED')
        .where((w) => w.or([w('c.email', '=', w.fn<string>('lower', ['i.customer_email'])), w.eb('c.phone', '=', w.ref('i.customer_phone'))])),
    )
    .$castTo<boolean>()
    .as('customer_kyc_verified');

/**
 * The invoice's customer, for a lateral join aliased `c`: the one bound at payment, or before
 * that the merchant's customer with the invoice's e-mail (stored lower-case), else its phone.
 * Three index probes at most.
 */
export const invoiceCustomer = (eb: InvoiceEb) => {
  // Each column cast to its declared type: a renamed column fails here, not in the invoices store's reads.
  const customer = () =>
    eb
      .selectFrom('customers as c')
      .select((c) => [
        c.ref('c.id').$castTo<string>().as('id'),
        c.ref('c.full_name').$castTo<string | null>().as('full_name'),
        c.ref('c.email').$castTo<string | null>().as('email'),
        c.ref('c.kyc_status').$castTo<Tables.KycStatus>().as('kyc_status'),
        c.ref('c.is_blocked').$castTo<boolean>().as('is_blocked'),
      ]);
  const unbound = () => customer().where('i.customer_id', 'is', null).whereRef('c.merchant_id', '=', 'i.merchant_id').whereRef('c.is_test', '=', 'i.is_test');
  return customer()
    .whereRef('c.id', '=', 'i.customer_id')
    .unionAll(unbound().where((w) => w('c.email', '=', w.fn<string>('lower', ['i.customer_email']))))
    .unionAll(unbound().whereRef('c.phone', '=', 'i.customer_phone'))
    .limit(1)
    .as('c');
};

/** The names of customers by id (analytics' top payers). */
export async function customerNames(on: InvoicingQueries, ids: string[]): Promise<Map<string, string | null>> {
  const db = on.$kysely;
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom('customers').select(['id', 'full_name']).where('id', 'in', ids).execute();
  return new Map(rows.map((r) => [r.id, r.full_name]));
}
