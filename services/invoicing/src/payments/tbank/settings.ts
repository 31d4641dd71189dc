import { Type, type Static } from '@sinclair/typebox';
import type { AcquirerSettings } from '../settings';

const properties = {
  TBANK_API_URL: Type.String({ pattern: '^https?://', default: 'https://securepay.tinkoff.ru/v2', description: 'T-Bank internet acquiring API v2 base URL' }),
  TBANK_TERMINAL_KEY: Type.Optional(Type.String({ minLength: 1, maxLength: 20, description: 'the live terminal (LIVE_PAYMENT_PROVIDER=tbank)' })),
  TBANK_PASSWORD: Type.Optional(Type.String({ minLength: 1, description: 'the live terminal’s password (signs requests, checks notifications)' })),
  TBANK_TEST_TERMINAL_KEY: Type.Optional(Type.String({ minLength: 1, maxLength: 20, description: 'the demo terminal (TEST_PAYMENT_PROVIDER=tbank)' })),
  TBANK_TEST_PASSWORD: Type.Optional(Type.String({ minLength: 1 })),
  TBANK_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 60_000, default: 10_000, description: 'how long a call to T-Bank may take before it counts as unreachable' }),
  TBANK_RECONCILE_INTERVAL_MS: Type.Integer({ minimum: 10, maximum: 3_600_000, default: 15_000, description: 'how often the leader asks T-Bank (GetState) about payments not yet settled' }),
  TBANK_RECONCILE_AFTER_MS: Type.Integer({
    minimum: 0,
    maximum: 86_400_000,
    default: 60_000,
    description: 'a payment is reconciled once it is this old (its notification would normally have come)',
  }),
};

const schema = Type.Object(properties);
/** T-Bank's variables as loaded (validated at start by the service's configuration). */
export type TBankSettings = Static<typeof schema>;

/** T-Bank's part of the service's configuration: its variables, and the terminal each configured mode needs. */
export const tbankSettings: AcquirerSettings = {
  name: 'tbank',
  properties,
  problems(config, modes) {
    const missing = [...(modes.live ? (['TBANK_TERMINAL_KEY', 'TBANK_PASSWORD'] as const) : []), ...(modes.test ? (['TBANK_TEST_TERMINAL_KEY', 'TBANK_TEST_PASSWORD'] as const) : [])].filter(
      (name) => !config[name],
    );
    return missing.map((name) => `${name} must be set: T-Bank is configured as a payment provider`);
  },
};

/** T-Bank's settings in a loaded configuration (checked against `properties` when it was loaded). */
export const tbankSettingsOf = (config: object): TBankSettings => config as TBankSettings;
