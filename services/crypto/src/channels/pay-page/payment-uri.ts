import type { PaymentToken } from '../../chains/port';
import { Money, money } from '../../shared/money';

/**
 * What the QR code and the "Open in wallet" link hold: an EIP-681 transfer request
 * (`ethereum:<token>@<chainId>/transfer?address=<to>&uint256=<amount in base units>`), so a
 * wallet fills in token, network, recipient and exact amount. The token is the one the
 * deployment is configured with and watches (contract, chain id, decimals: see
 * Chain.paymentToken), never a table of well-known contracts: on a devnet or testnet a
 * mainnet contract would name a token nobody watches. (Decimal arithmetic here rather than
 * chains/evm/amounts: the page is served by sandbox-only processes too, which never load viem.)
 */
export function paymentUri(token: PaymentToken, address: string, amount: Money): string {
  // Rounded up where a token counts coarser than the ledger: the payment must cover the amount.
  const units = amount.mul(money(10).pow(token.decimals)).toDecimalPlaces(0, Money.ROUND_UP).toFixed(0);
  return `ethereum:${token.contract}@${token.chainId}/transfer?address=${address}&uint256=${units}`;
}
