import type { Acquirer } from '../acquirer';
import type { PaymentProviders } from '../provider';
import { AcquirerPayments } from '../store/payments';
import { TBankClient } from './client';
import { countUnreadableNotifications, NOTIFICATION_PATH, tbankNotificationRoutes } from './notifications';
import { TBankProvider } from './provider';
import { settleDueTBankPayments } from './reconcile';
import { tbankReconcilers } from './reconciler-loop';
import { tbankSettings, tbankSettingsOf } from './settings';

/**
 * T-Bank's internet acquiring (API v2) as the registry holds it: a terminal per configured
 * mode (TBankProvider), its notification endpoint, its reconciler, and GetState before expiry.
 */
export const tbank: Acquirer<TBankProvider> = {
  settings: tbankSettings,
  provider(config, mode, deps) {
    const s = tbankSettingsOf(config);
    const [terminalKey, password] = mode === 'test' ? [s.TBANK_TEST_TERMINAL_KEY!, s.TBANK_TEST_PASSWORD!] : [s.TBANK_TERMINAL_KEY!, s.TBANK_PASSWORD!];
    return new TBankProvider(
      new TBankClient({ apiUrl: s.TBANK_API_URL, terminalKey, password, timeoutMs: s.TBANK_TIMEOUT_MS, mode }),
      new AcquirerPayments(deps.db, 'tbank', mode === 'test'),
      `${config.PUBLIC_URL}${NOTIFICATION_PATH}`,
      deps.clock,
      deps.logger,
      deps.settlement,
    );
  },
  owns: (provider): provider is TBankProvider => provider instanceof TBankProvider,
  mount(app, deps, providers) {
    // Signed by its own Token, answered in its own plain-text `OK`. A body the app's JSON parser
    // refused is counted by an error handler on the app: a router's own never sees it.
    app.use(NOTIFICATION_PATH, countUnreadableNotifications);
    app.use(tbankNotificationRoutes(deps, providers));
  },
  loops: (deps, providers) => tbankReconcilers(deps, providers),
  settleDue: (deps, provider, invoiceIds) => settleDueTBankPayments(deps, provider, invoiceIds),
  backlogAfterMs: (config) => tbankSettingsOf(config).TBANK_RECONCILE_AFTER_MS,
};

/** The configured T-Bank terminals (tests and tools that drive one). */
export const tbankProvidersOf = (providers: PaymentProviders): TBankProvider[] => [providers.test, providers.live].filter((p): p is TBankProvider => p !== null && tbank.owns(p));
