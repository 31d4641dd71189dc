import { Gauge } from 'prom-client';
import { metricsRegistry } from '@pay/runtime';
import type { Network } from '../../generated/prisma/client';
import type { SolvencyLine } from './line';

/**
 * The solvency check's findings, set by the replica that runs it (the network's watcher
 * leader) after each check, and removed where it no longer runs, so a replica that lost the
 * lease never reports stale figures. Token amounts in tokens (the ledger's units), gas in the
 * network's coin.
 */
const byToken = ['network', 'currency'] as const;
const gauge = (name: string, help: string, labelNames: readonly string[] = byToken) => new Gauge({ name, help, labelNames, registers: [metricsRegistry] });

const gap = gauge('crypto_solvency_gap', 'On chain (hot wallets + deposit addresses + other addresses sweeps sent tokens to) minus what the ledger owes (available + pending + live withdrawals not yet sent), in tokens: below zero, the platform cannot pay everyone');
const onChain = gauge('crypto_solvency_on_chain', 'Tokens on chain: the hot wallets, the deposit addresses that received a recorded transfer, and other addresses sweeps sent tokens to');
const owed = gauge('crypto_solvency_owed', 'Tokens the ledger owes live merchants and recipients: available + pending balances + live withdrawals not yet sent');
const hotTokens = gauge('crypto_hot_wallet_token_balance', "The hot wallets' token balance (what payouts are paid from)");
const gasBalance = gauge('crypto_hot_wallet_gas_balance', "The hot wallets' native coin (ETH, BNB) that pays payouts' gas", ['network']);
const gasPayouts = gauge('crypto_hot_wallet_gas_payouts', "How many payouts the hot wallets' native coin covers at today's fees and PAYOUT_GAS_LIMIT", ['network']);
const checkedAt = gauge('crypto_solvency_checked_timestamp_seconds', 'When the solvency check last completed for the network (Unix time)', ['network']);

/** The currencies reported per network, so a replica that stops checking one removes exactly its series. */
const reported = new Map<Network, Set<string>>();

export function reportSolvency(line: SolvencyLine, at: Date): void {
  const labels = { network: line.network, currency: line.currency };
  gap.set(labels, line.gap.toNumber());
  onChain.set(labels, line.onChain.total.toNumber());
  owed.set(labels, line.owed.total.toNumber());
  hotTokens.set(labels, line.onChain.hotWallets.toNumber());
  gasBalance.set({ network: line.network }, line.gas.balance.toNumber());
  gasPayouts.set({ network: line.network }, line.gas.payouts);
  checkedAt.set({ network: line.network }, at.getTime() / 1000);
  reported.set(line.network, (reported.get(line.network) ?? new Set()).add(line.currency));
}

/** This replica no longer checks `network` (another leads it): its figures would go stale. */
export function forgetSolvency(network: Network): void {
  for (const currency of reported.get(network) ?? []) for (const g of [gap, onChain, owed, hotTokens]) g.remove({ network, currency });
  for (const g of [gasBalance, gasPayouts, checkedAt]) g.remove({ network });
  reported.delete(network);
}
