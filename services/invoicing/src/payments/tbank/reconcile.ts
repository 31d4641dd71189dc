import type { AcquirerDeps } from '../acquirer';
import { applyAcquirerReport } from './apply-state';
import type { TBankProvider } from './provider';
import { AcquirerUnavailable } from './client';

/** Payments looked at per run: the oldest-checked first, so a backlog drains over runs. */
const BATCH = 100;

/**
 * Asks the acquirer (GetState) about every payment the payer may still be paying, or may have
 * paid without our hearing, once it is older than `afterMs`: a lost notification is healed
 * here, through the same applyAcquirerReport, so its events are emitted once whoever comes
 * first. Refunds in flight are finished by the refund reconciler, which repeats the Cancel
 * under its ExternalRequestId (the acquirer answers the first request's state). Returns how
 * many payments changed.
 */
export async function reconcileTBankPayments(deps: AcquirerDeps, provider: TBankProvider, afterMs: number): Promise<number> {
  const now = deps.clock.now();
  const open = await provider.payments.open(new Date(now.getTime() - afterMs), BATCH);
  let changed = 0;
  for (const payment of open) {
    try {
      const outcome = await applyAcquirerReport(deps, provider, payment, await provider.stateOf(payment));
      if (outcome.startsWith('ignored')) await provider.payments.touch(payment, deps.clock.now());
      else {
        changed++;
        deps.logger.info({ invoiceId: payment.invoiceId, paymentId: payment.paymentId, outcome }, 'T-Bank payment reconciled');
      }
    } catch (err) {
      if (err instanceof AcquirerUnavailable) throw err; // the whole run backs off
      deps.logger.warn({ err, invoiceId: payment.invoiceId }, 'T-Bank payment could not be reconciled; tried again next run');
      await provider.payments.touch(payment, deps.clock.now());
    }
  }
  return changed;
}

/**
 * Before invoices past `expiresAt` expire: each one's open acquirer payment is asked
 * (GetState) and what it says applied, so a payment made in time but not heard yet pays its
 * invoice instead of being flagged after the expiry. One still open at the acquirer is closed
 * (Cancel), so it cannot be paid after the invoice expired. The expiry leaves an invoice with
 * an open payment alone (invoices/store.ts expireDue), so an acquirer that cannot be asked now
 * delays the expiry rather than losing the payment. Returns how many payments were settled.
 */
export async function settleDueTBankPayments(deps: AcquirerDeps, provider: TBankProvider, dueInvoiceIds: string[]): Promise<number> {
  if (dueInvoiceIds.length === 0) return 0;
  let settled = 0;
  for (const payment of await provider.payments.openOfDueInvoices(dueInvoiceIds)) {
    try {
      const state = await provider.stateOf(payment);
      await applyAcquirerReport(deps, provider, payment, state);
      if (state.status === 'NEW' || state.status === 'FORM_SHOWED') await provider.cancelOrder({ externalOrderId: payment.invoiceId });
      settled++;
    } catch (err) {
      if (err instanceof AcquirerUnavailable) throw err;
      deps.logger.warn({ err, invoiceId: payment.invoiceId }, 'the T-Bank payment of an invoice past its expiry could not be settled; asked again next run');
    }
  }
  return settled;
}
