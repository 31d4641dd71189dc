import type { Static, TObject } from '@sinclair/typebox';
import { ApiError } from '@pay/schemas';
import type { Currency, Network } from '../generated/prisma/client';
import { currencyInfo } from '../shared/currencies';
import type { Chain, ChainServiceConfig, LiveChain, LiveChainContext, LiveChainModule } from './port';
import { evmChain } from './evm';

/**
 * The live chain implementations this service can connect, one folder each beside this file.
 * A new chain is its folder (a LiveChainModule: settings, connect) and one line here; its
 * settings join the service's configuration (config.ts) through this list.
 */
export const LIVE_CHAINS = [
  evmChain,
] as const;

type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;

/** Every registered chain's settings, one object: config.ts spreads it into the service's schema. */
export type LiveChainSettings = UnionToIntersection<(typeof LIVE_CHAINS)[number]['settings']>;
export const liveChainSettings = Object.assign({}, ...LIVE_CHAINS.map((c) => c.settings)) as LiveChainSettings;

/** The configuration the registered chains read: theirs and the service's few shared ones. */
export type LiveChainsConfig = Static<TObject<LiveChainSettings>> & ChainServiceConfig;

/**
 * Connects each registered chain that the configuration enables (none: a sandbox-only
 * deployment). `chains` is the registry unless a caller gives its own (a test's second chain).
 */
export async function connectLiveChains(config: LiveChainsConfig, ctx: LiveChainContext, chains: readonly LiveChainModule<any>[] = LIVE_CHAINS): Promise<LiveChain[]> {
  const connected: LiveChain[] = [];
  try {
    for (const chain of chains) {
      const live = await chain.connect(config, ctx);
      if (live) connected.push(live);
    }
  } catch (err) {
    await Promise.all(connected.map((c) => c.close()));
    throw err;
  }
  return connected;
}

/**
 * The chain connection of each mode and network. Test mode has the sandbox for every network;
 * live mode has a chain only for the networks a live connection carries (liveChainMap), and
 * only for the currencies it carries. Elsewhere live invoices and withdrawals are refused: an
 * address nobody watches would lose the money.
 */
export interface Chains {
  test: Chain;
  live: ReadonlyMap<Network, Chain>;
}

/** The live chains by network: each carries the networks of its currencies (null: none connected). */
export function liveChainMap(...chains: (Chain | null)[]): Map<Network, Chain> {
  const map = new Map<Network, Chain>();
  for (const chain of chains) {
    if (!chain) continue;
    for (const currency of chain.currencies) {
      const { network } = currencyInfo(currency);
      const other = map.get(network);
      if (other && other !== chain) throw new Error(`two live chains carry ${network}: one network is served by one chain`);
      map.set(network, chain);
    }
  }
  return map;
}

/** The chain of the mode and network, or null where live mode has none for it. */
export function chainOf(chains: Chains, isTest: boolean, network: Network): Chain | null {
  return isTest ? chains.test : (chains.live.get(network) ?? null);
}

/** Every connection, each once: the sandbox and the live chains (one may carry several networks). */
export function everyChain(chains: Chains): Chain[] {
  return [chains.test, ...new Set(chains.live.values())];
}

/** The chain that takes `currency` in this mode; refuses (CURRENCY_NOT_ENABLED) where none does. */
export function requireChain(chains: Chains, isTest: boolean, what: string, currency: Currency): Chain {
  if (isTest) return chains.test;
  if (chains.live.size === 0) {
    throw new ApiError(
      'CURRENCY_NOT_ENABLED',
      `Live ${what} need a live chain connection, which this deployment does not have; use a test key (sk_test_…) for the sandbox`,
    );
  }
  const chain = chains.live.get(currencyInfo(currency).network);
  if (!chain?.currencies.includes(currency)) {
    const live = [...new Set([...new Set(chains.live.values())].flatMap((c) => c.currencies))];
    throw new ApiError(
      'CURRENCY_NOT_ENABLED',
      `Live ${what} in ${currency} are not enabled on this deployment (live: ${live.join(', ') || 'none'}); use a test key (sk_test_…) for the sandbox`,
      [{ field: 'currency', message: `live mode takes ${live.join(', ') || 'no currency'}` }],
    );
  }
  return chain;
}

/** Refuses a live withdrawal up front when no payout can be signed for its network. */
export async function requirePayouts(chain: Chain, network: Network): Promise<void> {
  const problem = await chain.payoutProblem(network);
  if (problem) throw new ApiError('CURRENCY_NOT_ENABLED', problem);
}
