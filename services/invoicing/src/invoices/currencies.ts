import type { Pool } from 'pg';
import { ApiError } from '@pay/schemas';
import type { Currency } from './invoices';

/** Every currency an invoice can be in (invoicing-api.md, invoice v1). */
export const CURRENCIES = ['RUB', 'USD', 'EUR', 'KZT'] as const satisfies readonly Currency[];
/** A merchant who never chose invoices in rubles only. */
export const DEFAULT_CURRENCIES: readonly Currency[] = ['RUB'];

/** The merchant's enabled currencies (no settings row: the default), one primary-key probe. */
export async function enabledCurrencies(sql: Pool, merchantId: string): Promise<Currency[]> {
  const res = await sql.query<{ enabled_currencies: Currency[] | null }>({
    name: 'merchant-currencies',
    text: 'SELECT enabled_currencies::text[] AS enabled_currencies FROM invoicing.merchant_settings WHERE merchant_id = $1',
    values: [merchantId],
  });
  return res.rows[0]?.enabled_currencies ?? [...DEFAULT_CURRENCIES];
}

export function currencyNotEnabled(currency: string, enabled: readonly string[]): ApiError {
  return new ApiError(
    'CURRENCY_NOT_ENABLED',
    `Currency ${currency} is not enabled for this merchant (enabled: ${enabled.join(', ')}); enable it with PUT /api/v1/settings/currencies`,
    [{ field: 'currency', message: `must be one of the enabled currencies: ${enabled.join(', ')}` }],
  );
}

export async function assertCurrencyEnabled(sql: Pool, merchantId: string, currency: Currency): Promise<void> {
  const enabled = await enabledCurrencies(sql, merchantId);
  if (!enabled.includes(currency)) throw currencyNotEnabled(currency, enabled);
}

/** Replaces the merchant's set (kept in the service's order, without repeats). */
export async function setEnabledCurrencies(sql: Pool, merchantId: string, currencies: readonly Currency[], now: Date): Promise<Currency[]> {
  const set = CURRENCIES.filter((c) => currencies.includes(c));
  await sql.query(
    `INSERT INTO invoicing.merchant_settings (merchant_id, enabled_currencies, updated_at) VALUES ($1, $2::invoicing."Currency"[], $3)
     ON CONFLICT (merchant_id) DO UPDATE SET enabled_currencies = EXCLUDED.enabled_currencies, updated_at = EXCLUDED.updated_at`,
    [merchantId, set, now],
  );
  return set;
}
