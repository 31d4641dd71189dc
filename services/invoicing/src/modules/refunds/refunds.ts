import type { Owner } from '@pay/auth';
import { IDEMPOTENCY_TTL_MS, type IdempotentRun } from '@pay/http';
import { money, toJsonNumber, type Money } from '@pay/money';
import { ApiError, parseMoney } from '@pay/schemas';
import type { InvoicesDeps } from '../../deps';
import type { RefundResult } from '../../payments/provider';
import { countRefund } from '../customers/payers';
import { inTransaction, type Tx } from '../../transactions';
import { emitInvoiceEvent } from '../invoices/events';
import { FIAT_DECIMALS, providerFor } from '../invoices/invoices';
import { addRefunded, currencyOf, externalOrdersOf, lockInvoice, type InvoiceRow } from '../invoices/published';
import { heldByRefunds, insertRefund, refundById, refundOfIdempotencyKey, refundsOfInvoice, settlePendingRefund, stalePendingRefunds, type RefundRow } from './store';

export type { RefundRow };

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
  deps: InvoicesDeps,
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
      const made = await refundOfIdempotencyKey(tx, invoice.id, idempotency.key, new Date(deps.clock.now().getTime() - IDEMPOTENCY_TTL_MS));
      if (made) return { refund: made, invoice, resumed: true };
    }
    if (invoice.status !== 'PAID') throw new ApiError('INVOICE_NOT_PAID', `Cannot refund: invoice ${invoice.id} is ${invoice.status}, not PAID`);
    const left = money(invoice.amount).sub(money(await heldByRefunds(tx, invoice.id)));
    if (left.lte(0)) throw new ApiError('REFUND_EXCEEDS_PAID', `Invoice ${invoice.id} is already refunded in full`);
    const amount = requested ?? left;
    if (amount.gt(left)) {
      throw new ApiError('REFUND_EXCEEDS_PAID', `Refund of ${amount.toFixed()} exceeds what is left to refund on invoice ${invoice.id}: ${left.toFixed()}`, [
        { field: 'amount', message: `must be at most ${left.toFixed()}` },
      ]);
    }
    const refund = await insertRefund(tx, {
      invoice_id: invoice.id,
      merchant_id: invoice.merchant_id,
      is_test: invoice.is_test,
      amount: amount.toFixed(),
      status: 'PENDING',
      reason: input.reason ?? null,
      created_at: deps.clock.now(),
      settled_at: null,
      idempotency_key: idempotency?.key ?? null,
    });
    return { refund, invoice, resumed: false };
  });
}

/**
 * Step 3: records the provider's answer once (a conditional update on PENDING, so the request
 * and the reconciler can both try). SUCCEEDED adds to the invoice's `refundedAmount`, lowers
 * the customer's `totalAmount` and emits `invoice.refunded`; FAILED frees the reservation.
 */
async function settleRefund(deps: InvoicesDeps, refund: RefundRow, outcome: SettledRefund): Promise<{ refund: RefundRow; invoice: InvoiceRow }> {
  const ok = outcome.outcome === 'succeeded';
  return inTransaction(deps.db, async (tx) => {
    const invoice = await lockInvoice(tx, refund.invoice_id);
    const now = deps.clock.now();
    const settled = await settlePendingRefund(tx, refund.id, { status: ok ? 'SUCCEEDED' : 'FAILED', failure_reason: outcome.outcome === 'failed' ? outcome.reason : null, settled_at: now });
    if (!settled) {
      // Settled already by the other side: report what it recorded.
      const current = await refundById(tx, refund.id);
      return { refund: current, invoice };
    }
    if (!ok) return { refund: settled, invoice };
    const amount: Money = money(settled.amount);
    const updated = await addRefunded(tx, invoice.id, amount.toFixed());
    if (updated.customer_id) await countRefund(tx, updated.customer_id, amount, now);
    await emitInvoiceEvent(tx, deps.clock, updated, 'invoice.refunded', { refund: refundJson(settled, updated.currency) });
    return { refund: settled, invoice: updated };
  });
}

type SettledRefund = Exclude<RefundResult, { outcome: 'pending' }>;

/**
 * A refund the acquirer made outside this service (the merchant in the acquirer's own
 * account), learnt from the acquirer's state, in the caller's transaction under the invoice's
 * lock: a SUCCEEDED refund record (reason says where it came from), `refundedAmount`, the
 * customer's total, and `invoice.refunded`, exactly as a refund made here. Never past what is
 * left of the paid amount. Returns the refund, or null when nothing is left to refund.
 */
export async function recordRefundMadeElsewhere(tx: Tx, deps: Pick<InvoicesDeps, 'clock'>, invoice: InvoiceRow, amount: Money, reason: string): Promise<RefundRow | null> {
  if (invoice.status !== 'PAID') return null;
  const left = money(invoice.amount).sub(money(invoice.refunded_amount));
  const take = amount.gt(left) ? left : amount;
  if (take.lte(0)) return null;
  const now = deps.clock.now();
  const refund = await insertRefund(tx, { invoice_id: invoice.id, merchant_id: invoice.merchant_id, is_test: invoice.is_test, amount: take.toFixed(), status: 'SUCCEEDED', reason, created_at: now, settled_at: now, idempotency_key: null });
  const updated = await addRefunded(tx, invoice.id, take.toFixed());
  if (updated.customer_id) await countRefund(tx, updated.customer_id, take, now);
  await emitInvoiceEvent(tx, deps.clock, updated, 'invoice.refunded', { refund: refundJson(refund, updated.currency) });
  return refund;
}

/** Asks the provider (outside any transaction: no lock is held across its network call). */
async function askProvider(deps: InvoicesDeps, refund: RefundRow, invoice: Pick<InvoiceRow, 'external_order_id'>, owner: Owner) {
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
export async function refundInvoice(deps: InvoicesDeps, owner: Owner, invoiceId: string, input: { amount?: number; reason?: string }, idempotency?: IdempotentRun) {
  const { refund, invoice, resumed } = await reserveRefund(deps, owner, invoiceId, input, idempotency);
  // A resumed refund the dead request (or the reconciler) already settled is answered as it stands.
  if (resumed && refund.status !== 'PENDING') return { refund, invoice };
  const outcome = await askProvider(deps, refund, invoice, owner);
  // No answer, or the acquirer settles later (SBP refunds): PENDING, finished by the reconciler.
  if (!outcome || outcome.outcome === 'pending') return { refund, invoice };
  return settleRefund(deps, refund, outcome);
}

/** Finishes refunds whose request died between reserving and settling. Safe in several processes. */
export async function reconcileRefunds(deps: InvoicesDeps): Promise<number> {
  const before = new Date(deps.clock.now().getTime() - REFUND_STALE_MS);
  const stale = await stalePendingRefunds(deps.db, before);
  const orders = await externalOrdersOf(deps.db, [...new Set(stale.map((r) => r.invoice_id))]);
  let settled = 0;
  for (const r of stale) {
    const owner = { merchantId: r.merchant_id, isTest: r.is_test };
    const outcome = await askProvider(deps, r, { external_order_id: orders.get(r.invoice_id)! }, owner);
    if (!outcome || outcome.outcome === 'pending') continue;
    await settleRefund(deps, r, outcome);
    settled++;
  }
  return settled;
}

export async function listRefunds(deps: InvoicesDeps, owner: Owner, invoiceId: string): Promise<(RefundRow & { currency: string })[]> {
  const currency = await currencyOf(deps.db, owner, invoiceId);
  if (currency === null) throw new ApiError('NOT_FOUND', `Invoice ${invoiceId} not found`);
  const rows = await refundsOfInvoice(deps.db, invoiceId);
  return rows.map((r) => ({ ...r, currency }));
}
