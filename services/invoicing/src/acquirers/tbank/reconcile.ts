import type { InvoicingDeps } from '../../deps';
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
export async function reconcileTBankPayments(deps: Pick<InvoicingDeps, 'db' | 'clock' | 'logger'>, provider: TBankProvider, afterMs: number): Promise<number> {
  const now = deps.clock.now();
  const open = await provider.payments.open(new Date(now.getTime() - afterMs), BATCH);
  let changed = 0;
  for (const payment of open) {
    try {
      const state = await provider.stateOf(payment);
      const outcome = await applyAcquirerReport(deps, provider, payment, { status: state.status, amountKopecks: state.amountKopecks, payerBank: null, sbpTransactionId: state.sbpTransactionId });
      if (outcome.startsWith('ignored')) await provider.payments.touch(payment.invoiceId, deps.clock.now());
      else {
        changed++;
        deps.logger.info({ invoiceId: payment.invoiceId, paymentId: payment.paymentId, outcome }, 'T-Bank payment reconciled');
      }
    } catch (err) {
      if (err instanceof AcquirerUnavailable) throw err; // the whole run backs off
      deps.logger.warn({ err, invoiceId: payment.invoiceId }, 'T-Bank payment could not be reconciled; tried again next run');
      await provider.payments.touch(payment.invoiceId, deps.clock.now());
    }
  }
  return changed;
}
