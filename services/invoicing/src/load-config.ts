import { configSchemaWith, loadConfigWith, type InvoicingConfig } from './config';
import { ACQUIRERS } from './payments/registry';

const acquirers = ACQUIRERS.map((a) => a.settings);

/** Every variable the service reads: its own (config.ts) and each registered acquirer's (payments/registry.ts). */
export const InvoicingConfigSchema = configSchemaWith(acquirers);

/** The service's configuration from the environment, checked whole at start (config.ts: ConfigError). */
export function loadInvoicingConfig(env: NodeJS.ProcessEnv = process.env): InvoicingConfig {
  return loadConfigWith(acquirers, env);
}
