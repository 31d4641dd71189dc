import type { Clock, Logger } from '@pay/runtime';
import type { CryptoDeps } from '../../deps';
import type { ChainHoldings } from '../../chains/port';
import type { Currency, Network } from '../../generated/prisma/client';
import { fundedLiveAddresses } from '../invoices/service';
import { transfersToInvoice } from '../transactions/fragments';
import { liveLedgerTotals } from '../ledger/ledger';
import { unsentLiveAmount } from '../withdrawals/service';
import { Money, money } from '../../shared/money';
import type { SolvencyLine } from './line';
import { forgetSolvency, reportSolvency } from './metrics';

type Reads = Pick<CryptoDeps, 'db'>;

/**
 * One token's solvency. The ledger side is read first and the chain after it: a deposit
 * credited in between is then on chain and not yet owed (the gap looks larger for one check),
 * never owed and not yet seen (a false shortfall). Owed: every live merchant's available and
 * pending balance (pending holds detected deposits, which are on chain already), and live
 * withdrawals not yet sent (their tokens are still in the hot wallet). A withdrawal sent but
 * not yet mined is owed nothing and still on chain: the gap looks larger until it is mined.
 */
export async function solvencyOf(deps: Reads, holdings: ChainHoldings, network: Network, currency: Currency): Promise<SolvencyLine> {
  const [ledger, unsent, addresses] = await Promise.all([
    liveLedgerTotals(deps.db, currency),
    unsentLiveAmount(deps, currency),
    fundedLiveAddresses(deps, currency, transfersToInvoice),
  ]);
  const chain = await holdings.holdings(network, currency, addresses);
  const sum = (xs: { tokens: Money }[]) => xs.reduce((a, x) => a.add(x.tokens), money(0));
  const onChain = { hotWallets: sum(chain.hotWallets), deposits: sum(chain.deposits), depositAddresses: chain.deposits.length, sweptTo: sum(chain.sweptTo) };
  const owed = { available: ledger.available, pending: ledger.pending, unsentWithdrawals: money(unsent) };
  const onChainTotal = onChain.hotWallets.add(onChain.deposits).add(onChain.sweptTo);
  const owedTotal = owed.available.add(owed.pending).add(owed.unsentWithdrawals);
  const payouts = chain.gas.perPayout.gt(0) ? chain.gas.balance.div(chain.gas.perPayout).floor().toNumber() : Number.POSITIVE_INFINITY;
  return {
    network,
    currency,
    onChain: { ...onChain, total: onChainTotal },
    owed: { ...owed, total: owedTotal },
    gap: onChainTotal.sub(owedTotal),
    gas: { ...chain.gas, payouts },
    hotWallets: chain.hotWallets,
    sweptTo: chain.sweptTo,
  };
}

/** Every token the live chain carries (the operator's report: no lease needed, it only reads). */
export async function solvencyReport(deps: Reads, holdings: ChainHoldings): Promise<SolvencyLine[]> {
  const lines: SolvencyLine[] = [];
  for (const t of holdings.tokens()) lines.push(await solvencyOf(deps, holdings, t.network, t.currency));
  return lines;
}

/**
 * The periodic check: each network is checked by the one replica whose watcher leads it (the
 * watcher's lease, chain_cursors), which exports the figures as metrics (./metrics.ts) and
 * logs a shortfall; a replica that does not lead a network exports nothing for it. The alerts
 * (infra/k8s/monitoring/alerts.yaml) fire on the metrics.
 */
export async function checkSolvency(deps: Reads & { clock: Clock; logger: Logger }, holdings: ChainHoldings): Promise<SolvencyLine[]> {
  const lines: SolvencyLine[] = [];
  const networks = [...new Set(holdings.tokens().map((t) => t.network))];
  for (const network of networks) {
    if (!(await holdings.leads(network))) {
      forgetSolvency(network);
      continue;
    }
    for (const t of holdings.tokens().filter((x) => x.network === network)) {
      const line = await solvencyOf(deps, holdings, network, t.currency);
      reportSolvency(line, deps.clock.now());
      lines.push(line);
      if (line.gap.lt(0)) {
        deps.logger.error(
          { network, currency: t.currency, gap: line.gap.toFixed(), onChain: line.onChain.total.toFixed(), owed: line.owed.total.toFixed() },
          'solvency: less on chain than the ledger owes (see docs/runbooks/crypto-solvency-gap.md)',
        );
      }
    }
  }
  return lines;
}

const fmt = (m: Money) => m.toFixed();

/** The report as an operator reads it (`pnpm --filter crypto solvency`). */
export function formatSolvency(lines: SolvencyLine[], at: Date): string {
  const out = [`Solvency of live funds at ${at.toISOString()} (tokens; gas in each network's coin)`];
  if (lines.length === 0) out.push('', 'No live network is configured (EVM_RPC_URL_ETHEREUM, EVM_RPC_URL_BSC): nothing is held on chain.');
  for (const l of lines) {
    out.push(
      '',
      `${l.network} ${l.currency}: ${l.gap.lt(0) ? 'SHORT' : 'solvent'}`,
      `  on chain   ${fmt(l.onChain.total)}  = hot wallets ${fmt(l.onChain.hotWallets)} + deposits ${fmt(l.onChain.deposits)} at ${l.onChain.depositAddresses} address(es)${
        l.sweptTo.length > 0 ? ` + swept elsewhere ${fmt(l.onChain.sweptTo)}` : ''
      }`,
      `  owed       ${fmt(l.owed.total)}  = available ${fmt(l.owed.available)} + pending ${fmt(l.owed.pending)} + withdrawals not yet sent ${fmt(l.owed.unsentWithdrawals)}`,
      `  gap        ${fmt(l.gap)}  (on chain - owed)`,
      `  gas        ${fmt(l.gas.balance)} ${l.gas.symbol} in the hot wallet(s); a payout costs ${fmt(l.gas.perPayout)} ${l.gas.symbol} now: covers ${l.gas.payouts} payouts`,
      ...l.hotWallets.map((w) => `  hot wallet ${w.address}: ${fmt(w.tokens)}`),
      ...l.sweptTo.map((w) => `  swept to   ${w.address}: ${fmt(w.tokens)}`),
    );
  }
  return out.join('\n');
}
