import { erc20Abi, getAddress, type Address, type PublicClient } from 'viem';
import { ConfigError } from '@pay/runtime';
import type { EvmConfig } from './settings';
import type { Currency, Network } from '../../generated/prisma/client';
import { askAll, parseRpcUrls, rpcProviders, type RpcProvider } from './rpc';

/**
 * The networks one EVM implementation serves, and the tokens each carries live: for each, the
 * setting that names its contract. Any ERC-20 is served alike; a token whose contract is not
 * set is not live.
 */
export const EVM_NETWORKS = {
  Ethereum: {
    rpc: 'EVM_RPC_URL_ETHEREUM',
    confirmations: 'CONFIRMATIONS_ETHEREUM',
    tokens: { USDT_ERC20: 'USDT_CONTRACT_ETHEREUM', USDC_ERC20: 'USDC_CONTRACT_ETHEREUM' },
  },
  BSC: {
    rpc: 'EVM_RPC_URL_BSC',
    confirmations: 'CONFIRMATIONS_BSC',
    tokens: { USDT_BEP20: 'USDT_CONTRACT_BSC', USDC_BEP20: 'USDC_CONTRACT_BSC' },
  },
} as const satisfies Partial<
  Record<Network, { rpc: keyof EvmConfig; confirmations: keyof EvmConfig; tokens: Partial<Record<Currency, keyof EvmConfig>> }>
>;

export type EvmNetworkName = keyof typeof EVM_NETWORKS;

/**
 * One live token as configured and read from its contract: what the payment page's EIP-681
 * link names (chain id, contract, decimals), what the watcher follows and the signer pays out.
 */
export interface EvmToken {
  currency: Currency;
  network: EvmNetworkName;
  address: Address;
  /** Read from the contract at start. */
  decimals: number;
  /** Read from the providers at start (all must agree). */
  chainId: number;
}

/** One live network as configured: its providers and the tokens it watches and pays out. */
export interface EvmNetwork {
  network: EvmNetworkName;
  chainId: number;
  confirmations: number;
  tokens: EvmToken[];
  /** Every configured provider: a deposit is recorded and credited only when all of them agree. */
  providers: RpcProvider[];
  /** The first provider: where payouts are sent and the hot wallet's state is read. */
  client: PublicClient;
}

/** The token of `currency` on this network; throws where it is not configured. */
export function tokenOf(net: EvmNetwork, currency: Currency): EvmToken {
  const token = net.tokens.find((t) => t.currency === currency);
  if (!token) throw new Error(`${currency} is not live on ${net.network}: set ${(EVM_NETWORKS[net.network].tokens as Record<string, string>)[currency] ?? 'its contract'}`);
  return token;
}

/** The token whose contract is `address` on this network, if we watch it. */
export function tokenAt(net: EvmNetwork, address: string): EvmToken | undefined {
  return net.tokens.find((t) => t.address.toLowerCase() === address.toLowerCase());
}

export interface ConfiguredEvmNetwork {
  network: EvmNetworkName;
  rpcUrls: string[];
  tokens: { currency: Currency; address: Address }[];
  confirmations: number;
}

/** The networks whose RPC URL is set, checked for the rest of their settings. */
export function configuredEvmNetworks(config: EvmConfig): ConfiguredEvmNetwork[] {
  const out: ConfiguredEvmNetwork[] = [];
  for (const [network, names] of Object.entries(EVM_NETWORKS) as [EvmNetworkName, (typeof EVM_NETWORKS)[EvmNetworkName]][]) {
    const value = config[names.rpc];
    if (!value) continue;
    const rpcUrls = parseRpcUrls(names.rpc, value);
    const tokens = Object.entries(names.tokens).flatMap(([currency, setting]) => {
      const address = config[setting as keyof EvmConfig] as string | undefined;
      return address ? [{ currency: currency as Currency, address: getAddress(address) }] : [];
    });
    if (tokens.length === 0) {
      throw new ConfigError([`${names.rpc} is set, so at least one token contract on ${network} must be too: ${Object.values(names.tokens).join(' or ')}`]);
    }
    if (new Set(tokens.map((t) => t.address)).size !== tokens.length) {
      throw new ConfigError([`${Object.values(names.tokens).join(' and ')} name the same contract: each token has its own`]);
    }
    if (!config.DEPOSIT_XPUB) throw new ConfigError([`${names.rpc} is set, so DEPOSIT_XPUB must be too: live invoices need deposit addresses`]);
    out.push({ network, rpcUrls, tokens, confirmations: config[names.confirmations] });
  }
  return out;
}

/**
 * Providers per configured network, with each token's decimals read from its contract: a
 * wrong contract address, an unreachable node or providers on different chains stop the
 * start with a message naming the setting (and never the URL, which holds an API key).
 */
export async function connectEvmNetworks(config: EvmConfig): Promise<EvmNetwork[]> {
  return Promise.all(
    configuredEvmNetworks(config).map(async (n) => {
      const names = EVM_NETWORKS[n.network];
      const providers = rpcProviders(n.network, n.rpcUrls);
      const chainIds = await askAll(n.network, providers, 'eth_chainId', (c) => c.getChainId()).catch((err: Error) => {
        throw new Error(`${names.rpc}: ${err.message}`);
      });
      if (new Set(chainIds).size > 1) {
        throw new Error(`${names.rpc} names providers of different chains (chain ids ${chainIds.join(', ')} for ${providers.map((p) => p.name).join(', ')}): all must serve ${n.network}`);
      }
      const chainId = chainIds[0]!;
      const tokens = await Promise.all(
        n.tokens.map(async (t) => {
          const setting = (names.tokens as Record<string, string>)[t.currency];
          const decimals = await askAll(n.network, providers, 'decimals()', (c) => c.readContract({ address: t.address, abi: erc20Abi, functionName: 'decimals' })).catch(
            (err: Error) => {
              throw new Error(`could not read decimals() of ${setting}=${t.address}: ${err.message}`);
            },
          );
          if (new Set(decimals).size > 1) throw new Error(`the providers of ${names.rpc} disagree on decimals() of ${setting}=${t.address}: ${decimals.join(', ')}`);
          return { currency: t.currency, network: n.network, address: t.address, decimals: decimals[0]!, chainId };
        }),
      );
      return { network: n.network, chainId, confirmations: n.confirmations, tokens, providers, client: providers[0]!.client };
    }),
  );
}
