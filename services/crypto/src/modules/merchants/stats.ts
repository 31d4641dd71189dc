import type { AuthContext } from '@pay/auth';
import type { CryptoDeps } from '../../deps';
import { balances, sumOfKind } from '../ledger/ledger';
import { Money, toJsonNumber } from '../../shared/money';
import { ownerOf } from '@pay/auth';
import { invoiceCountsByStatus } from '../invoices/service';
import type { InvoiceStatus } from '../../generated/prisma/client';

/**
 * Statistics of the caller's mode (live or test). Amounts are summed across currencies at
 * their USD rate, as `totalUsdValue` is: every currency is a USD stablecoin.
 */
export async function merchantStats(deps: CryptoDeps, auth: AuthContext) {
  const owner = ownerOf(auth);
  const [byStatus, received, fees, balanceRows] = await Promise.all([
    invoiceCountsByStatus(deps, owner),
    sumOfKind(deps.db, owner, 'deposit'),
    sumOfKind(deps.db, owner, 'fee'),
    balances(deps.db, owner),
  ]);
  const count = (...statuses: InvoiceStatus[]) => statuses.reduce((n, s) => n + (byStatus.get(s) ?? 0), 0);
  const usd = (rows: { currency: Parameters<CryptoDeps['rates']['usdRate']>[0]; amount: Money }[]) =>
    toJsonNumber(rows.reduce((sum, r) => sum.add(r.amount.mul(deps.rates.usdRate(r.currency))), new Money(0)));
  return {
    totalInvoices: count('Pending', 'PartiallyPaid', 'Paid', 'Underpaid', 'Expired'),
    paidInvoices: count('Paid'),
    pendingInvoices: count('Pending', 'PartiallyPaid'),
    expiredInvoices: count('Expired', 'Underpaid'),
    totalReceived: usd(received),
    totalFees: usd(fees.map((f) => ({ ...f, amount: f.amount.neg() }))),
    availableBalance: usd(balanceRows.map((b) => ({ currency: b.currency, amount: b.available }))),
  };
}
