import { randomUUID } from 'node:crypto';
import { every, type Periodic } from '@pay/runtime';
import type { AcquirerDeps } from '../acquirer';
import type { InvoicingDeps } from '../../deps';
import type { TBankProvider } from './provider';
import { tbankSettingsOf } from './settings';
import { holdLease, releaseLease } from '../store/leases';
import { reconcileTBankPayments } from './reconcile';

/**
 * One reconciler loop per T-Bank terminal, in every process; each run first takes (or keeps)
 * the terminal's lease, so one process of all replicas asks the acquirer at a time. The lease
 * lasts three intervals: a leader that dies is replaced within that.
 */
export function tbankReconcilers(deps: AcquirerDeps & Pick<InvoicingDeps, 'config'>, providers: TBankProvider[]): Periodic[] {
  const holder = randomUUID();
  const settings = tbankSettingsOf(deps.config);
  const intervalMs = settings.TBANK_RECONCILE_INTERVAL_MS;
  return providers.map((provider) => {
    const lease = `tbank-reconciler:${provider.client.terminalKey}`;
    const loop = every(
      'tbank-reconciler',
      intervalMs,
      async () => {
        if (await holdLease(deps.db, lease, holder, 3 * intervalMs, deps.clock.now())) await reconcileTBankPayments(deps, provider, settings.TBANK_RECONCILE_AFTER_MS);
      },
      deps.logger,
    );
    return {
      runNow: loop.runNow,
      nextRun: loop.nextRun,
      async stop() {
        await loop.stop();
        await releaseLease(deps.db, lease, holder).catch(() => undefined);
      },
    };
  });
}
