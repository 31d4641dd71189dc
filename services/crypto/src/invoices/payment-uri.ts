import { money } from '../money';

/**
 * The token contracts and chains of the EVM currencies, for the payment URI a wallet reads
 * from the page's QR code. Contracts as their issuers publish them (Tether:
 * https://tether.to/en/supported-protocols, Circle: https://developers.circle.com/stablecoins/usdc-contract-addresses);
 * on BSC both tokens have 18 decimals, on Ethereum 6.
 */
const EVM_TOKENS: Record<string, { chainId: number; contract: string; decimals: number }> = {
  USDT_ERC20: { chainId: 1, contract: '0xdAC17F958D2ee523a2206206994597C13D831ec7', decimals: 6 },
  USDC_ERC20: { chainId: 1, contract: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', decimals: 6 },
  USDT_BEP20: { chainId: 56, contract: '0x55d398326f99059fF775485246999027B3197955', decimals: 18 },
  USDC_BEP20: { chainId: 56, contract: '0x8AC76a51cc950d9822D68b83fE1Ad97B32Cd580d', decimals: 18 },
};

/**
 * What the QR code holds. EVM tokens: an EIP-681 transfer request
 * (`ethereum:<token>@<chainId>/transfer?address=<to>&uint256=<amount in base units>`), so a
 * wallet fills in token, network, recipient and exact amount. Tron has no URI scheme wallets
 * agree on: the address alone, the amount typed by the payer from the page.
 */
export function paymentUri(invoice: { currency: string; address: string; amount: { toString(): string } }): string {
  const token = EVM_TOKENS[invoice.currency];
  if (!token) return invoice.address;
  const units = money(invoice.amount).mul(money(10).pow(token.decimals)).toFixed(0);
  return `ethereum:${token.contract}@${token.chainId}/transfer?address=${invoice.address}&uint256=${units}`;
}
