/**
 * Operators' tools for live funds (README, "Solvency and sweeping"). Run from the repo with
 * the crypto service's settings in the environment, or in the image as
 * `node services/crypto/dist/cli.js <command>`:
 *
 *   pnpm --filter crypto solvency          what is on chain against what the ledger owes, per
 *                                          network and token (exit 2 when a gap is negative)
 *   pnpm --filter crypto sweep [--dry-run] [--network Ethereum|BSC] [--to 0x…] [--path "m/44'/60'/0'"]
 *                                          moves settled deposits to the hot wallet, funding
 *                                          each address's gas first; reads from stdin the
 *                                          deposit seed phrase (or xprv), then the gas payer's key.
 *                                          Each transfer is recorded (sweep_transfers) before it
 *                                          is broadcast; earlier ones not yet final are settled,
 *                                          or sent again, first
 */
import { readFileSync } from 'node:fs';
import { getAddress, isAddress, type Address } from 'viem';
import { createLogger, systemClock } from '@pay/runtime';
import { loadCryptoConfig } from './config';
import { createCryptoDatabase } from './db';
import { connectLiveChain } from './chains/evm/live-chain';
import { tokenOf } from './chains/evm/config';
import type { Network } from './generated/prisma/client';
import { formatSolvency, solvencyReport } from './modules/solvency/solvency';
import { finishSweeps, planSweep, readSweepSecrets, runSweep, type SweepDeps } from './modules/solvency/sweep';
import { requiredConfirmations } from './modules/transactions/transfers';

/** The tools decrypt nothing: SECRETS_KEY, which the service needs, is not asked of them. */
const UNUSED_SECRETS_KEY = '0'.repeat(64);

function option(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  if (i < 0) return undefined;
  const value = args[i + 1];
  if (value === undefined || value.startsWith('--')) throw new Error(`${name} needs a value`);
  return value;
}

async function main([command, ...args]: string[]): Promise<number> {
  if (command !== 'solvency' && command !== 'sweep') {
    throw new Error('usage: cli.ts solvency | sweep [--dry-run] [--network Ethereum|BSC] [--to 0x…] [--path "m/44\'/60\'/0\'"]');
  }
  // SERVE_API=false: these tools serve nothing, so an operator's shell that exports the
  // workers' PAYOUT_PRIVATE_KEY_FILE must not trip the API process's refusal of the key.
  const config = loadCryptoConfig({ SECRETS_KEY: UNUSED_SECRETS_KEY, ...process.env, SERVE_API: 'false', LOG_LEVEL: process.env.LOG_LEVEL ?? 'error' });
  const logger = createLogger('crypto-cli', config.LOG_LEVEL, process.stderr);
  const { db, close } = createCryptoDatabase(config.DATABASE_URL, 2, config.DATABASE_POOLING);
  // Read-only here: no payout key, no watcher run; the chain is only asked for balances.
  const live = await connectLiveChain(config, db, systemClock, logger, { runsPayouts: false });
  try {
    if (command === 'solvency') {
      const lines = live ? await solvencyReport({ db }, live.holdings) : [];
      console.log(formatSolvency(lines, systemClock.now()));
      return lines.some((l) => l.gap.lt(0)) ? 2 : 0;
    }
    if (!live) throw new Error('no live network is configured (EVM_RPC_URL_ETHEREUM, EVM_RPC_URL_BSC): nothing to sweep');
    const only = option(args, '--network') as Network | undefined;
    const tokens = live.holdings.tokens().filter((t) => !only || t.network === only);
    if (only && tokens.length === 0) throw new Error(`--network ${only} is not configured here (live: ${live.holdings.tokens().map((t) => t.network).join(', ')})`);
    const networks = tokens.map((t) => ({ net: live.network(t.network), token: tokenOf(live.network(t.network), t.currency) }));
    const deps: SweepDeps = { db, clock: systemClock, logger };
    const unsettled = await finishSweeps(deps, [...new Set(networks.map((n) => n.net))], (net) => requiredConfirmations({ config }, net.network));
    for (const s of unsettled) console.log(`${s.network} ${s.currency} ${s.fromAddress}: the sweep ${s.txHash} is not final yet (sent again; its address is left this time)`);
    const items = await planSweep(deps, networks);
    for (const i of items) console.log(`${i.network} ${i.currency} ${i.address} (index ${i.index}): ${i.amount.toFixed()}${i.skipped ? `: left, ${i.skipped}` : ''}`);
    const due = items.filter((i) => !i.skipped);
    if (args.includes('--dry-run') || due.length === 0) {
      console.log(due.length === 0 ? 'nothing to sweep' : `${due.length} address(es) would be swept (dry run)`);
      return 0;
    }
    if (process.stdin.isTTY) console.error("Paste the deposit seed phrase (or the account's xprv), then the gas payer's private key, one per line, then Ctrl-D:");
    const secrets = readSweepSecrets(readFileSync(0, 'utf8'), config.DEPOSIT_XPUB!, option(args, '--path') ?? "m/44'/60'/0'");
    const toArg = option(args, '--to');
    if (toArg !== undefined && !isAddress(toArg)) throw new Error(`--to must be an address (0x and 40 hex digits), got ${toArg}`);
    const to: Address = toArg ? getAddress(toArg) : secrets.gasPayer.address;
    console.log(`sweeping ${due.length} address(es) to ${to}; gas from ${secrets.gasPayer.address}`);
    const swept = await runSweep(deps, items, new Map(networks.map((n) => [n.token.currency, n])), secrets, to, config.PAYOUT_GAS_LIMIT, (s) =>
      console.log(`swept ${s.item.amount.toFixed()} ${s.item.currency} from ${s.item.address}: ${s.tx}${s.fundTx ? ` (gas sent first: ${s.funded} wei, ${s.fundTx})` : ''}`),
    );
    console.log(`done: ${swept.length} address(es) swept`);
    return 0;
  } finally {
    await live?.close();
    await close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: Error) => {
    console.error(err.message);
    process.exit(1);
  },
);
