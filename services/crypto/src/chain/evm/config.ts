import { createPublicClient, erc20Abi, getAddress, http, type Address, type PublicClient } from 'viem';
import type { CryptoConfig } from '../../config';
import type { Currency, Network } from '../../generated/prisma/client';

/** The networks one EVM implementation serves, and the token each carries live. */
export const EVM_NETWORKS = {
  Ethereum: { currency: 'USDT_ERC20', rpc: 'EVM_RPC_URL_ETHEREUM', token: 'USDT_CONTRACT_ETHEREUM', confirmations: 'CONFIRMATIONS_ETHEREUM' },
  BSC: { currency: 'USDT_BEP20', rpc: 'EVM_RPC_URL_BSC', token: 'USDT_CONTRACT_BSC', confirmations: 'CONFIRMATIONS_BSC' },
} as const satisfies Partial<Record<Network, { currency: Currency; rpc: keyof CryptoConfig; token: keyof CryptoConfig; confirmations: keyof CryptoConfig }>>;

export type EvmNetworkName = keyof typeof EVM_NETWORKS;

/** One live network as configured: where to reach it and the token it watches and pays out. */
export interface EvmNetwork {
  network: EvmNetworkName;
  currency: Currency;
  rpcUrl: string;
  token: Address;
  /** Read from the contract at start. */
  decimals: number;
  chainId: number;
  confirmations: number;
  client: PublicClient;
}

/** The networks whose RPC URL is set, checked for the rest of their settings. */
export function configuredEvmNetworks(config: CryptoConfig): { network: EvmNetworkName; rpcUrl: string; token: Address; confirmations: number }[] {
  const out = [];
  for (const [network, names] of Object.entries(EVM_NETWORKS) as [EvmNetworkName, (typeof EVM_NETWORKS)[EvmNetworkName]][]) {
    const rpcUrl = config[names.rpc];
    if (!rpcUrl) continue;
    const token = config[names.token];
    if (!token) throw new Error(`${names.rpc} is set, so ${names.token} must be too: the address of the USDT contract on ${network}`);
    if (!config.DEPOSIT_XPUB) throw new Error(`${names.rpc} is set, so DEPOSIT_XPUB must be too: live invoices need deposit addresses`);
    out.push({ network, rpcUrl, token: getAddress(token), confirmations: config[names.confirmations] });
  }
  return out;
}

/**
 * A client per configured network, with the token's decimals read from the contract: a
 * wrong contract address or an unreachable node stops the start with a message naming it,
 * rather than surfacing on the first payment.
 */
export async function connectEvmNetworks(config: CryptoConfig): Promise<EvmNetwork[]> {
  return Promise.all(
    configuredEvmNetworks(config).map(async (n) => {
      // No cache of the head: confirmations are counted from it, and a stale one would hold them back.
      const client = createPublicClient({ transport: http(n.rpcUrl, { batch: true, retryCount: 2 }), cacheTime: 0 }) as PublicClient;
      let decimals: number;
      try {
        decimals = await client.readContract({ address: n.token, abi: erc20Abi, functionName: 'decimals' });
      } catch (err) {
        throw new Error(`could not read decimals() of ${EVM_NETWORKS[n.network].token}=${n.token} at ${n.rpcUrl}: ${(err as Error).message.split('\n')[0]}`);
      }
      return { ...n, currency: EVM_NETWORKS[n.network].currency, decimals, chainId: await client.getChainId(), client };
    }),
  );
}
