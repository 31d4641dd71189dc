import { erc20Abi, formatEther, getAddress } from 'viem';
import { money } from '../../shared/money';
import type { TokenHoldings } from '../port';
import { fromUnits } from './amounts';
import type { EvmNetwork, EvmToken } from './config';

const NATIVE: Record<string, string> = { Ethereum: 'ETH', BSC: 'BNB' };
/** balanceOf calls in flight at once: the client batches them into JSON-RPC batches. */
const CHUNK = 100;

/**
 * One token's balances on one network at one block (the head when asked, the same block for
 * every call, so a transfer between two reads cannot be counted twice or missed; a sweep is
 * seen either at its deposit address or where it went, never both nor neither): the hot
 * wallets' tokens and native coin, the deposit addresses that hold any of the token, and the
 * other addresses sweeps sent it to. A payout's gas is `gasLimit` at today's maxFeePerGas.
 */
export async function evmHoldings(
  net: EvmNetwork,
  token: EvmToken,
  hotWallets: string[],
  depositAddresses: string[],
  sweptTo: string[],
  gasLimit: number,
): Promise<TokenHoldings> {
  const blockNumber = await net.client.getBlockNumber();
  const at = { blockNumber };
  const balances = async (addresses: string[]) => {
    const out: bigint[] = [];
    for (let i = 0; i < addresses.length; i += CHUNK) {
      const chunk = addresses.slice(i, i + CHUNK);
      out.push(...(await Promise.all(chunk.map((a) => net.client.readContract({ address: token.address, abi: erc20Abi, functionName: 'balanceOf', args: [getAddress(a)], ...at })))));
    }
    return out;
  };
  const [hotTokens, depositTokens, sweptTokens, natives, fees] = await Promise.all([
    balances(hotWallets),
    balances(depositAddresses),
    balances(sweptTo),
    Promise.all(hotWallets.map((a) => net.client.getBalance({ address: getAddress(a), ...at }))),
    net.client.estimateFeesPerGas(),
  ]);
  const native = natives.reduce((a, b) => a + b, 0n);
  return {
    network: net.network,
    currency: token.currency,
    hotWallets: hotWallets.map((address, i) => ({ address, tokens: fromUnits(hotTokens[i]!, token.decimals) })),
    deposits: depositAddresses.flatMap((address, i) => (depositTokens[i]! > 0n ? [{ address, tokens: fromUnits(depositTokens[i]!, token.decimals) }] : [])),
    sweptTo: sweptTo.map((address, i) => ({ address, tokens: fromUnits(sweptTokens[i]!, token.decimals) })),
    gas: { symbol: NATIVE[net.network] ?? 'native', balance: money(formatEther(native)), perPayout: money(formatEther(BigInt(gasLimit) * fees.maxFeePerGas)) },
  };
}
