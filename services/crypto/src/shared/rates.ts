import type { Currency } from '../generated/prisma/client';
import { Money } from './money';

/** Where USD values come from. One place, so a market-rate source can replace it. */
export interface UsdRates {
  usdRate(currency: Currency): Money;
}

/** Every supported currency is a USD stablecoin, valued at 1 USD. */
export const stablecoinRates: UsdRates = {
  usdRate: () => new Money(1),
};
