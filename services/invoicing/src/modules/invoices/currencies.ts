import { ApiError } from '@pay/schemas';
import type { InvoicingQueries, Tables } from '../../db';
import { merchantCurrencies, saveMerchantCurrencies } from './store';

export type Currency = Tables.Currency;

/** Every currency an invoice can be in (the v1 invoice's `currency`). */
export const CURRENCIES = ['RUB', 'USD', 'EUR', 'KZT'] as const satisfies readonly Currency[];
/** A merchant who never chose invoices in rubles only. */
export const DEFAULT_CURRENCIES: readonly Currency[] = ['RUB'];

/** The merchant's enabled currencies (no settings row: the default), one primary-key probe. */
export async function enabledCurrencies(on: InvoicingQueries, merchantId: string): Promise<Currency[]> {
  return (await merchantCurrencies(on, merchantId)) ?? [...DEFAULT_CURRENCIES];
}
export function currencyNotEnabled(currency: string, enabled: readonly string[]): ApiError {
  return new ApiError(
    'CURRENCY_NOT_ENABLED',
    `Currency ${currency} is not enabled for this merchant (enabled: ${enabled.join(', ')}); enable it with PUT /api/v1/settings/currencies`,
    [{ field: 'currency', message: `must be one of the enabled currencies: ${enabled.join(', ')}` }],
  );
}

export async function assertCurrencyEnabled(on: InvoicingQueries, merchantId: string, currency: Currency): Promise<void> {
  const enabled = await enabledCurrencies(on, merchantId);
  if (!enabled.includes(currency)) throw currencyNotEnabled(currency, enabled);
}

/** Replaces the merchant's set (kept in the service's order, without repeats). */
export async function setEnabledCurrencies(on: InvoicingQueries, merchantId: string, currencies: readonly Currency[], now: Date): Promise<Currency[]> {
  const set = CURRENCIES.filter((c) => currencies.includes(c));
  await saveMerchantCurrencies(on, merchantId, set, now);
  return set;
}
