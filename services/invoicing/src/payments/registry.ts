import type { Express } from 'express';
import type { Periodic } from '@pay/runtime';
import type { InvoicingConfig } from '../config';
import type { InvoicingDeps } from '../deps';
import type { Acquirer, AcquirerDeps } from './acquirer';
import { watchAcquirerBacklog } from './metrics';
import type { PaymentProvider, PaymentProviders } from './provider';
import { SandboxProvider } from './sandbox';
import { acquirerBacklog } from './store/payments';
import { tbank } from './tbank';

/**
 * Every acquirer the service can take payments through, by name (LIVE_PAYMENT_PROVIDER,
 * TEST_PAYMENT_PROVIDER). A new acquirer is its folder (declaring an Acquirer: settings,
 * provider, routes, loops) and one line here; the configuration, the app, the background and
 * the expiry ask this list.
 */
export const ACQUIRERS: readonly Acquirer<any>[] = [
  tbank,
];

/** The registered acquirers, or the list a caller gives instead (a test's second acquirer): every function below asks it. */
type AcquirerList = readonly Acquirer<any>[];

const named = (acquirers: AcquirerList, name: string | undefined) => acquirers.find((a) => a.settings.name === name);

/**
 * The providers this deployment's configuration names: test mode the sandbox unless
 * TEST_PAYMENT_PROVIDER names an acquirer (its demo terminal); live mode the acquirer
 * LIVE_PAYMENT_PROVIDER names, otherwise none (live invoices are refused: the sandbox never
 * takes live money).
 */
export function paymentProvidersFrom(config: InvoicingConfig, deps: AcquirerDeps, acquirers: AcquirerList = ACQUIRERS): PaymentProviders {
  const test = named(acquirers, config.TEST_PAYMENT_PROVIDER)?.provider(config, 'test', deps) ?? new SandboxProvider(config.PUBLIC_URL);
  const live = named(acquirers, config.LIVE_PAYMENT_PROVIDER)?.provider(config, 'live', deps) ?? null;
  return { test, live };
}

/** The configured providers that are `acquirer`'s own. */
export function providersOf<P extends PaymentProvider>(acquirer: Acquirer<P>, providers: PaymentProviders): P[] {
  return [providers.test, providers.live].filter((p): p is P => p !== null && acquirer.owns(p));
}

/** Each acquirer's own routes (its notification endpoint), with its configured providers. */
export function mountAcquirers(app: Express, deps: AcquirerDeps & Pick<InvoicingDeps, 'providers'>, acquirers: AcquirerList = ACQUIRERS): void {
  for (const acquirer of acquirers) acquirer.mount?.(app, deps, providersOf(acquirer, deps.providers));
}

/**
 * The acquirers' background work: their loops (reconcilers), and, where any reconciles,
 * /metrics reporting the reconciliation backlog (one statement per acquirer per scrape).
 * `stop` ends the backlog's reporting; the loops are the caller's to stop.
 */
export function acquirerBackground(deps: AcquirerDeps & Pick<InvoicingDeps, 'config' | 'providers'>, acquirers: AcquirerList = ACQUIRERS): { loops: Periodic[]; unwatch: () => void } {
  const loops = acquirers.flatMap((a) => {
    const own = providersOf(a, deps.providers);
    return own.length && a.loops ? a.loops(deps, own) : [];
  });
  const reconciling = acquirers.flatMap((a) => {
    const own = providersOf(a, deps.providers);
    return own.length && a.backlogAfterMs ? [{ name: a.settings.name, afterMs: a.backlogAfterMs(deps.config), terminals: own.map((p) => ({ provider: p.name, isTest: p === deps.providers.test })) }] : [];
  });
  if (reconciling.length === 0) return { loops, unwatch: () => undefined };
  const unwatch = watchAcquirerBacklog({
    terminals: reconciling.flatMap((r) => r.terminals),
    read: async () => {
      const lines = await Promise.all(reconciling.map(async (r) => (await acquirerBacklog(deps.db, deps.clock.now(), r.afterMs)).filter((l) => l.provider === r.name)));
      return lines.flat();
    },
  });
  return { loops, unwatch };
}

/**
 * Before due invoices expire: each configured acquirer settles their open payments (expiry.ts).
 * One that cannot be asked is logged and skipped: its invoices expire once it answers.
 */
export async function settleDueAcquirerPayments(deps: AcquirerDeps & Pick<InvoicingDeps, 'providers'>, invoiceIds: string[], acquirers: AcquirerList = ACQUIRERS): Promise<void> {
  if (invoiceIds.length === 0) return;
  for (const acquirer of acquirers) {
    if (!acquirer.settleDue) continue;
    for (const provider of providersOf(acquirer, deps.providers)) {
      await acquirer.settleDue(deps, provider, invoiceIds).catch((err: unknown) => deps.logger.warn({ err }, 'the acquirer could not be asked about invoices past their expiry; they expire once it answers'));
    }
  }
}
