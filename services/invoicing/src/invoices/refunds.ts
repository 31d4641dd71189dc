import { randomUUID } from 'node:crypto';
import type { Owner } from '@pay/auth';
import { IDEMPOTENCY_TTL_MS, money, parseMoney, toJsonNumber, type IdempotentRun, type Money } from '@pay/kit';
import { ApiError } from '@pay/schemas';
import type { InvoicingDeps } from '../deps';
import type { RefundResult } from '../payments/provider';
import { countRefund } from '../customers/payers';
import { inTransaction } from '../transactions';
import { emitInvoiceEvent } from './events';
import { FIAT_DECIMALS, providerFor } from './invoices';
import { lockInvoice } from './payment';
import { INVOICE_COLUMNS, type InvoiceRow, type Numeric } from './store';

export interface RefundRow {
  id: string;
  invoice_id: string;
  merchant_id: string;
  is_test: boolean;
  amount: Numeric;
  status: 'PENDING' | 'SUCCEEDED' | 'FAILED';
  reason: string | null;
  failure_reason: string | null;
  created_at: Date;
  settled_at: Date | null;
  idempotency_key: string | null;
}

/** A PENDING refund older than this has lost its request (a crash mid-way): the reconciler finishes it. */
export const REFUND_STALE_MS = 30_000;

/** A refund is in its invoice's currency (RUB for v2 invoices; a v1 invoice's own). */
export function refundJson(r: RefundRow, currency: string) {
  return {
    id: r.id,
    invoiceId: r.invoice_id,
    amount: toJsonNumber(r.amount),
    currency,
    status: r.status,
    reason: r.reason,
    failureReason: r.failure_reason,
    createdAt: r.created_at.toISOString(),
    settledAt: r.settled_at?.toISOString() ?? null,
  };
}

export function refundedInvoiceJson(i: InvoiceRow) {
  return {
    id: i.id,
    status: i.status,
    amount: toJsonNumber(i.amount),
    refundedAmount: toJsonNumber(i.refunded_amount),
    refundableAmount: toJsonNumber(money(i.amount).sub(money(i.refunded_amount))),
  };
}

/**
 * Step 1: under the invoice's row lock, checks that it is PAID and that this refund fits in
 * what is left (paid amount less every refund not FAILED, pending ones included), and
 * records the refund PENDING. The lock makes concurrent refunds queue, so their sum can never
 * pass the paid amount.
 */
async function reserveRefund(
  deps: InvoicingDeps,
  owner: Owner,
  invoiceId: string,
  input: { amount?: number; reason?: string },
  idempotency?: IdempotentRun,
): Promise<{ refund: RefundRow; invoice: InvoiceRow; resumed: boolean }> {
  const requested = input.amount === undefined ? null : parseMoney(input.amount, { decimals: FIAT_DECIMALS });
  return inTransaction(deps.db, async (tx) => {
    const invoice = await lockInvoice(tx, invoiceId, owner);
    if (idempotency?.resumed) {
      // The request this one resumes died after its claim: it may have reserved the refund and
      // never stored the answer. Then that refund is this request's, not a second one.
      const [made] = await tx.$queryRawUnsafe<RefundRow[]>(
        `SELECT * FROM invoicing.refunds WHERE invoice_id = $1::uuid AND idempotency_key = $2 AND created_at > $3`,
        invoice.id,
        idempotency.key,
        new Date(deps.clock.now().getTime() - IDEMPOTENCY_TTL_MS),
      );
      if (made) return { refund: made, invoice, resumed: true };
    }
    if (invoice.status !== 'PAID') throw new ApiError('INVOICE_NOT_PAID', `Cannot refund: invoice ${invoice.id} is ${invoice.status}, not PAID`);
    const [held] = await tx.$queryRawUnsafe<{ sum: Numeric }[]>(
      `SELECT COALESCE(sum(amount), 0) AS sum FROM invoicing.refunds WHERE invoice_id = $1::uuid AND status <> 'FAILED'`,
      invoice.id,
    );
    const left = money(invoice.amount).sub(money(held!.sum));
    if (left.lte(0)) throw new ApiError('REFUND_EXCEEDS_PAID', `Invoice ${invoice.id} is already refunded in full`);
    const amount = requested ?? left;
    if (amount.gt(left)) {
      throw new ApiError('REFUND_EXCEEDS_PAID', `Refund of ${amount.toFixed()} exceeds what is left to refund on invoice ${invoice.id}: ${left.toFixed()}`, [
        { field: 'amount', message: `must be at most ${left.toFixed()}` },
      ]);
    }
    const [refund] = await tx.$queryRawUnsafe<RefundRow[]>(
      `INSERT INTO invoicing.refunds (id, invoice_id, merchant_id, is_test, amount, status, reason, created_at, idempotency_key)
       VALUES ($1::uuid, $2::uuid, $3::uuid, $4, $5::numeric, 'PENDING', $6, $7, $8) RETURNING *`,
      randomUUID(),
      invoice.id,
      invoice.merchant_id,
      invoice.is_test,
      amount.toFixed(),
      input.reason ?? null,
      deps.clock.now(),
      idempotency?.key ?? null,
    );
    return { refund: refund!, invoice, resumed: false };
  });
}

/**
 * Step 3: records the provider's answer once (a conditional update on PENDING, so the request
 * and the reconciler can both try). SUCCEEDED adds to the invoice's `refundedAmount`, lowers
 * the customer's `totalAmount` and emits `invoice.refunded`; FAILED frees the reservation.
 */
async function settleRefund(deps: InvoicingDeps, refund: RefundRow, outcome: SettledRefund): Promise<{ refund: RefundRow; invoice: InvoiceRow }> {
  const ok = outcome.outcome === 'succeeded';
  return inTransaction(deps.db, async (tx) => {
    const invoice = await lockInvoice(tx, refund.invoice_id);
    const now = deps.clock.now();
    const [settled] = await tx.$queryRawUnsafe<RefundRow[]>(
      `UPDATE invoicing.refunds SET status = $2::invoicing."RefundStatus", failure_reason = $3, settled_at = $4
        WHERE id = $1::uuid AND status = 'PENDING' RETURNING *`,
      refund.id,
      ok ? 'SUCCEEDED' : 'FAILED',
      outcome.outcome === 'failed' ? outcome.reason : null,
      now,
    );
    if (!settled) {
      // Settled already by the other side: report what it recorded.
      const [current] = await tx.$queryRawUnsafe<RefundRow[]>('SELECT * FROM invoicing.refunds WHERE id = $1::uuid', refund.id);
      return { refund: current!, invoice };
    }
    if (!ok) return { refund: settled, invoice };
    const amount: Money = money(settled.amount);
    const [updated] = await tx.$queryRawUnsafe<InvoiceRow[]>(
      `UPDATE invoicing.invoices i SET refunded_amount = refunded_amount + $2::numeric WHERE id = $1::uuid RETURNING ${INVOICE_COLUMNS}`,
      invoice.id,
      amount.toFixed(),
    );
    if (updated!.customer_id) await countRefund(tx, updated!.customer_id, amount, now);
    await emitInvoiceEvent(tx, deps.clock, updated!, 'invoice.refunded', { refund: refundJson(settled, updated!.currency) });
    return { refund: settled, invoice: updated! };
  });
}

type SettledRefund = Exclude<RefundResult, { outcome: 'pending' }>;

/** Asks the provider (outside any transaction: no lock is held across its network call). */
async function askProvider(deps: InvoicingDeps, refund: RefundRow, invoice: Pick<InvoiceRow, 'external_order_id'>, owner: Owner) {
  try {
    return await providerFor(deps, owner).refund({ refundId: refund.id, externalOrderId: invoice.external_order_id, amount: money(refund.amount) });
  } catch (err) {
    // No answer: the refund stays PENDING and the reconciler asks again (the provider dedupes by refund id).
    deps.logger.warn({ err, refundId: refund.id }, 'refund provider call failed; left for the reconciler');
    return null;
  }
}

/**
 * POST /api/v2/invoices/{id}/refunds: reserve, ask the provider, settle. With the sandbox the
 * answer is immediate, so the refund comes back SUCCEEDED; a provider that does not answer, or
 * settles later, leaves it PENDING for the reconciler.
 */
export async function refundInvoice(deps: InvoicingDeps, owner: Owner, invoiceId: string, input: { amount?: number; reason?: string }, idempotency?: IdempotentRun) {
  const { refund, invoice, resumed } = await reserveRefund(deps, owner, invoiceId, input, idempotency);
  // A resumed refund the dead request (or the reconciler) already settled is answered as it stands.
  if (resumed && refund.status !== 'PENDING') return { refund, invoice };
  const outcome = await askProvider(deps, refund, invoice, owner);
  // No answer, or the acquirer settles later (SBP refunds): PENDING, finished by the reconciler.
  if (!outcome || outcome.outcome === 'pending') return { refund, invoice };
  return settleRefund(deps, refund, outcome);
}

/** Finishes refunds whose request died between reserving and settling. Safe in several processes. */
export async function reconcileRefunds(deps: InvoicingDeps): Promise<number> {
  const before = new Date(deps.clock.now().getTime() - REFUND_STALE_MS);
  const stale = await deps.db.$queryRawUnsafe<(RefundRow & { external_order_id: string })[]>(
    `SELECT r.*, i.external_order_id FROM invoicing.refunds r JOIN invoicing.invoices i ON i.id = r.invoice_id
      WHERE r.status = 'PENDING' AND r.created_at < $1 ORDER BY r.created_at LIMIT 100`,
    before,
  );
  let settled = 0;
  for (const r of stale) {
    const owner = { merchantId: r.merchant_id, isTest: r.is_test };
    const outcome = await askProvider(deps, r, r, owner);
    if (!outcome || outcome.outcome === 'pending') continue;
    await settleRefund(deps, r, outcome);
    settled++;
  }
  return settled;
}

export async function listRefunds(deps: InvoicingDeps, owner: Owner, invoiceId: string): Promise<(RefundRow & { currency: string })[]> {
  const rows = await deps.db.$queryRawUnsafe<((RefundRow & { currency: string }) | { [K in keyof RefundRow]: null })[]>(
    `SELECT r.*, i.currency::text AS currency FROM invoicing.invoices i LEFT JOIN invoicing.refunds r ON r.invoice_id = i.id
      WHERE i.id = $1::uuid AND i.merchant_id = $2::uuid AND i.is_test = $3 ORDER BY r.created_at, r.id`,
    invoiceId,
    owner.merchantId,
    owner.isTest,
  );
  if (rows.length === 0) throw new ApiError('NOT_FOUND', `Invoice ${invoiceId} not found`);
  return rows.filter((r): r is RefundRow & { currency: string } => r.id !== null);
}
