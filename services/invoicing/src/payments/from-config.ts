import type { Clock, Logger } from '@pay/runtime';
import type { InvoicingConfig } from '../config';
import type { InvoicingDb } from '../db';
import type { PaymentProvider, PaymentProviders } from './provider';
import { SandboxProvider } from './sandbox';
import { TBankClient } from './tbank/client';
import { NOTIFICATION_PATH } from './tbank/notifications';
import { AcquirerPayments } from './tbank/payments-store';
import { TBankProvider } from './tbank/provider';

/**
 * The providers this deployment's configuration names: test mode the sandbox unless
 * TEST_PAYMENT_PROVIDER=tbank (T-Bank's demo terminal); live mode T-Bank with
 * LIVE_PAYMENT_PROVIDER=tbank, otherwise none (live invoices are refused: the sandbox never
 * takes live money).
 */
export function paymentProvidersFrom(config: InvoicingConfig, deps: { db: InvoicingDb; clock: Clock; logger: Logger }): PaymentProviders {
  const tbank = (terminalKey: string, password: string, isTest: boolean) =>
    new TBankProvider(
      new TBankClient({ apiUrl: config.TBANK_API_URL, terminalKey, password, timeoutMs: config.TBANK_TIMEOUT_MS, mode: isTest ? 'test' : 'live' }),
      new AcquirerPayments(deps.db, 'tbank', isTest),
      `${config.PUBLIC_URL}${NOTIFICATION_PATH}`,
      deps.clock,
      deps.logger,
    );
  const test: PaymentProvider =
    config.TEST_PAYMENT_PROVIDER === 'tbank' ? tbank(config.TBANK_TEST_TERMINAL_KEY!, config.TBANK_TEST_PASSWORD!, true) : new SandboxProvider(config.PUBLIC_URL);
  const live = config.LIVE_PAYMENT_PROVIDER === 'tbank' ? tbank(config.TBANK_TERMINAL_KEY!, config.TBANK_PASSWORD!, false) : null;
  return { test, live };
}

/** The T-Bank terminals among the providers: their notifications are taken, their payments reconciled. */
export function tbankProvidersOf(providers: PaymentProviders): TBankProvider[] {
  return [providers.test, providers.live].filter((p): p is TBankProvider => p instanceof TBankProvider);
}
