import type { TProperties } from '@sinclair/typebox';

/**
 * What an acquirer adds to the service's configuration (config.ts reads every registered
 * acquirer's through load-config.ts): its environment variables, checked at start with the
 * rest, and what a configuration naming it (LIVE_PAYMENT_PROVIDER, TEST_PAYMENT_PROVIDER)
 * lacks. Kept apart from the acquirer's code, which reaches the service's deps and config.
 */
export interface AcquirerSettings {
  /** Its name in LIVE_PAYMENT_PROVIDER / TEST_PAYMENT_PROVIDER, and the `provider` of its rows and metrics. */
  readonly name: string;
  /** Its variables as TypeBox properties: optional or defaulted, since they matter only where it is configured. */
  readonly properties: TProperties;
  /** What is missing when the configuration names it for live and/or test mode (one message each). */
  problems(config: Readonly<Record<string, unknown>>, modes: { live: boolean; test: boolean }): string[];
}
