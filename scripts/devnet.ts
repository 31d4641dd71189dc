/**
 * Local EVM devnets for trying live crypto end to end (see README, "Going live on
 * Ethereum/BSC"): two Hardhat nodes, one standing for Ethereum (chain id 31337, USDT and USDC
 * with 6 decimals) and one for BSC (chain id 31338, both with 18), so all four EVM currencies
 * are live. The crypto service's settings for them are written to <state>/devnet.env (the hot
 * wallet's key apart, in <state>/devnet-payout-key, mode 0600, for crypto-workers alone), where
 * <state> is STACK_STATE (as scripts/stack.sh reads it: a folder, relative to the checkout's
 * root unless absolute) or .stack.
 *
 *   tsx scripts/devnet.ts start                         start them (scripts/stack.sh devnet does this)
 *   tsx scripts/devnet.ts pay <to> <amount> [currency]   send tokens from the funded payer account (pnpm devnet:pay);
 *                                                        currency USDT_ERC20 (default), USDC_ERC20, USDT_BEP20 or USDC_BEP20
 *   tsx scripts/devnet.ts balance <address> [currency]   the token balance of an address (pnpm devnet:balance)
 *   tsx scripts/devnet.ts stop                          stop them
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { openDevnet, startDevnetNode, type Devnet } from '../services/crypto/src/chains/evm/devnet';
import { fromUnits } from '../services/crypto/src/chains/evm/amounts';
import { isEvmAddress } from '../services/crypto/src/chains/addresses';
import { createCryptoDatabase } from '../services/crypto/src/db';
import { forgetDevnet } from '../services/crypto/test';

// The same folder as scripts/stack.sh's, so a second stack (STACK_STATE=/x stack.sh devnet) has its own devnet.
const STATE = path.resolve(__dirname, '..', process.env.STACK_STATE || '.stack');
const ENV_FILE = path.join(STATE, 'devnet.env');
// The hot wallet's key, apart from the settings every process reads: stack.sh names it to crypto-workers alone.
const KEY_FILE = path.join(STATE, 'devnet-payout-key');
const PID_FILE = path.join(STATE, 'devnet.pid');

function saved(): Record<string, string> {
  if (!existsSync(ENV_FILE)) throw new Error('no devnet: start one with `bash scripts/stack.sh devnet`');
  return Object.fromEntries(
    readFileSync(ENV_FILE, 'utf8').split('\n').filter((l) => /^[A-Z_]+=/.test(l)).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
}

/** The two devnets: the network each stands for, its chain id, port and token decimals (as on the real network). */
const NETWORKS = [
  { network: 'Ethereum', suffix: 'ETHEREUM', chainId: 31337, port: Number(process.env.DEVNET_PORT ?? 8545), decimals: 6 },
  { network: 'BSC', suffix: 'BSC', chainId: 31338, port: Number(process.env.DEVNET_BSC_PORT ?? Number(process.env.DEVNET_PORT ?? 8545) + 1), decimals: 18 },
] as const;
const CURRENCIES = {
  USDT_ERC20: { suffix: 'ETHEREUM', symbol: 'USDT' },
  USDC_ERC20: { suffix: 'ETHEREUM', symbol: 'USDC' },
  USDT_BEP20: { suffix: 'BSC', symbol: 'USDT' },
  USDC_BEP20: { suffix: 'BSC', symbol: 'USDC' },
} as const;
type DevnetCurrency = keyof typeof CURRENCIES;

function currencyOf(arg: string | undefined): DevnetCurrency {
  const c = (arg ?? 'USDT_ERC20').toUpperCase();
  if (!(c in CURRENCIES)) throw new Error(`expected a currency of the devnets (${Object.keys(CURRENCIES).join(', ')}), got ${arg}`);
  return c as DevnetCurrency;
}

async function connect(currency: DevnetCurrency): Promise<Devnet> {
  const env = saved();
  const { suffix } = CURRENCIES[currency];
  const url = env[`EVM_RPC_URL_${suffix}`];
  if (!url) throw new Error(`the devnet's settings have no EVM_RPC_URL_${suffix}: restart it with \`bash scripts/stack.sh devnet\``);
  return openDevnet(url, { tokens: { USDT: env[`USDT_CONTRACT_${suffix}`] as `0x${string}`, USDC: env[`USDC_CONTRACT_${suffix}`] as `0x${string}` } });
}

function pids(): number[] {
  if (!existsSync(PID_FILE)) return [];
  return readFileSync(PID_FILE, 'utf8').split(/\s+/).filter(Boolean).map(Number);
}

function running(): boolean {
  return pids().some((pid) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  });
}

function address(arg: string | undefined): `0x${string}` {
  if (!arg || !isEvmAddress(arg)) throw new Error(`expected an address (0x and 40 hex digits), got ${arg ?? 'nothing'}`);
  return arg as `0x${string}`;
}

function stopAll(): void {
  for (const pid of pids()) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
  rmSync(PID_FILE, { force: true });
  rmSync(ENV_FILE, { force: true });
  rmSync(KEY_FILE, { force: true });
}

/**
 * A new devnet is a new chain: what the crypto service remembers of the last one (cursor,
 * block hashes, the hot wallet's nonce and signed payouts, sweeps) would not match it.
 */
async function forgetPreviousDevnet(): Promise<void> {
  const { db, close } = createCryptoDatabase(process.env.DATABASE_URL ?? 'postgresql://root@127.0.0.1:5432/payments', 1);
  try {
    // Through the chains module's test helpers (@pay/crypto/test): the tables are its store's.
    await db.$transaction(async (tx) => {
      for (const { network } of NETWORKS) await forgetDevnet(tx, network);
    });
  } finally {
    await close();
  }
}

async function main([verb, ...args]: string[]): Promise<void> {
  switch (verb) {
    case 'start': {
      if (running()) {
        console.log(`devnets already running (pids ${pids().join(', ')}); settings in ${ENV_FILE}`);
        return;
      }
      mkdirSync(path.join(STATE, 'logs'), { recursive: true });
      const started: { net: (typeof NETWORKS)[number]; d: Devnet }[] = [];
      try {
        for (const net of NETWORKS) {
          const log = path.join(STATE, 'logs', `devnet-${net.network.toLowerCase()}.log`);
          const node = await startDevnetNode({ port: net.port, chainId: net.chainId, detached: true, intervalMs: 1000, logFile: log });
          writeFileSync(PID_FILE, [...pids(), node.pid].join(' '));
          started.push({ net, d: await openDevnet(node.url, { decimals: net.decimals }) });
        }
        await forgetPreviousDevnet();
      } catch (err) {
        stopAll(); // half a devnet would be taken for a running one
        throw err;
      }
      const d = started[0]!.d;
      writeFileSync(
        ENV_FILE,
        [
          '# Written by scripts/devnet.ts start: the crypto service on the local devnets (Ethereum and BSC settings).',
          '# Hardhat development keys, publicly known: never for real money.',
          ...started.flatMap(({ net, d }) => [
            `EVM_RPC_URL_${net.suffix}=${d.url}`,
            `USDT_CONTRACT_${net.suffix}=${d.tokens.USDT.address}`,
            `USDC_CONTRACT_${net.suffix}=${d.tokens.USDC.address}`,
            // A block a second: three confirmations take about three seconds.
            `CONFIRMATIONS_${net.suffix}=3`,
          ]),
          `DEPOSIT_XPUB=${d.xpub}`,
          '',
        ].join('\n'),
      );
      // Its owner alone may read it (crypto refuses a key file open to others); chmod too, for a file left from before.
      writeFileSync(KEY_FILE, `${d.hotWalletKey}\n`, { mode: 0o600 });
      chmodSync(KEY_FILE, 0o600);
      for (const { net, d } of started) {
        console.log(
          `devnet ${net.network}: ${d.url} (chain id ${d.chainId}), USDT ${d.tokens.USDT.address} and USDC ${d.tokens.USDC.address} with ${net.decimals} decimals, a block a second`,
        );
      }
      console.log(`  payer account:  ${d.payer.address}  holds 1000000 of each; pay with: pnpm devnet:pay <address> <amount> [USDT_ERC20|USDC_ERC20|USDT_BEP20|USDC_BEP20]`);
      console.log(`  hot wallet:     ${d.hotWallet.address}  holds 1000000 of each; its key in ${KEY_FILE} (crypto-workers' PAYOUT_PRIVATE_KEY_FILE)`);
      console.log(`  settings:       ${ENV_FILE}`);
      return;
    }
    case 'pay': {
      const currency = currencyOf(args[2]);
      const d = await connect(currency);
      const to = address(args[0]);
      const amount = args[1];
      if (!amount || !/^[0-9]+(\.[0-9]{1,6})?$/.test(amount)) throw new Error(`expected an amount such as 25 or 25.5, got ${amount ?? 'nothing'}`);
      const hash = await d.transfer(d.payer, to, amount, CURRENCIES[currency].symbol);
      console.log(`sent ${amount} ${currency} from ${d.payer.address} to ${to}: ${hash}`);
      return;
    }
    case 'balance': {
      const currency = currencyOf(args[1]);
      const d = await connect(currency);
      const who = address(args[0]);
      const { symbol } = CURRENCIES[currency];
      console.log(`${fromUnits(await d.balanceOf(who, symbol), d.tokens[symbol].decimals).toFixed()} ${currency} at ${who}`);
      return;
    }
    case 'stop': {
      stopAll();
      return;
    }
    default:
      throw new Error('usage: tsx scripts/devnet.ts start | pay <address> <amount> [currency] | balance <address> [currency] | stop');
  }
}

main(process.argv.slice(2)).catch((err: Error) => {
  console.error(err.message);
  process.exit(1);
});
