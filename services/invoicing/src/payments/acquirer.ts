import type { Express } from 'express';
import type { Periodic } from '@pay/runtime';
import type { InvoicingConfig } from '../config';
import type { InvoicingDeps } from '../deps';
import type { PaymentProvider } from './provider';
import type { AcquirerSettings } from './settings';

/**
 * What an acquirer's code reaches of the service: its own rows through `db`, and the invoices
 * only through `settlement` (the port payments/settlement.ts declares), never a module.
 */
export type AcquirerDeps = Pick<InvoicingDeps, 'db' | 'clock' | 'logger' | 'settlement'>;

/**
 * A real acquirer, as the registry (registry.ts) holds it by name: everything the service asks
 * of it, so a new acquirer is one folder declaring this and one line in the registry. Its
 * payments, refunds and notifications are rows of the payments module's store (store/), which
 * carry its name as `provider`.
 */
export interface Acquirer<P extends PaymentProvider = PaymentProvider> {
  /** Its name and configuration (settings.ts). */
  readonly settings: AcquirerSettings;
  /** Its provider (a terminal) for one mode, from a configuration that names it there (checked at start against its settings). */
  provider(config: InvoicingConfig, mode: 'test' | 'live', deps: AcquirerDeps): P;
  /** Whether a configured provider is one of its own. */
  owns(provider: PaymentProvider): provider is P;
  /** Mounts its own routes on the app (an acquirer's notification endpoint: its signatures, its answers), with its configured providers (maybe none). */
  mount?(app: Express, deps: AcquirerDeps, providers: P[]): void;
  /** Its loops of the background (a reconciler), given its configured providers. */
  loops?(deps: AcquirerDeps & Pick<InvoicingDeps, 'config'>, providers: P[]): Periodic[];
  /**
   * Before invoices past expiresAt expire: settles the open payments of `invoiceIds` at one of
   * its providers (asks the acquirer; pays what was paid in time, closes the rest). Throws
   * when the acquirer cannot be asked: those invoices wait for the next pass.
   */
  settleDue?(deps: AcquirerDeps, provider: P, invoiceIds: string[]): Promise<number>;
  /** Where it reconciles: how old an open payment is before it counts in the reconciliation backlog (metrics.ts). */
  backlogAfterMs?(config: InvoicingConfig): number;
}
