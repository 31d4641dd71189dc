/**
 * A local EVM devnet for trying live crypto end to end (see README, "Going live on
 * Ethereum/BSC"): a Hardhat node with a USDT-like ERC-20 deployed, the crypto service's
 * settings for it written to <state>/devnet.env, where <state> is STACK_STATE (as scripts/stack.sh
 * reads it: a folder, relative to the checkout's root unless absolute) or .stack.
 *
 *   tsx scripts/devnet.ts start             start it (scripts/stack.sh devnet does this)
 *   tsx scripts/devnet.ts pay <to> <amount>  send tokens from the funded payer account (pnpm devnet:pay)
 *   tsx scripts/devnet.ts balance <address>  the token balance of an address (pnpm devnet:balance)
 *   tsx scripts/devnet.ts stop              stop it
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { openDevnet, startDevnetNode, type Devnet } from '../services/crypto/src/chain/evm/devnet';
import { fromUnits } from '../services/crypto/src/chain/evm/amounts';
import { isEvmAddress } from '../services/crypto/src/chain/addresses';
import { createCryptoDatabase } from '../services/crypto/src/db';

// The same folder as scripts/stack.sh's, so a second stack (STACK_STATE=/x stack.sh devnet) has its own devnet.
const STATE = path.resolve(__dirname, '..', process.env.STACK_STATE || '.stack');
const ENV_FILE = path.join(STATE, 'devnet.env');
const PID_FILE = path.join(STATE, 'devnet.pid');

function saved(): Record<string, string> {
  if (!existsSync(ENV_FILE)) throw new Error('no devnet: start one with `bash scripts/stack.sh devnet`');
  return Object.fromEntries(
    readFileSync(ENV_FILE, 'utf8').split('\n').filter((l) => /^[A-Z_]+=/.test(l)).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
}

async function connect(): Promise<Devnet> {
  const env = saved();
  return openDevnet(env.EVM_RPC_URL_ETHEREUM!, { token: env.USDT_CONTRACT_ETHEREUM as `0x${string}` });
}

function running(): boolean {
  if (!existsSync(PID_FILE)) return false;
  try {
    process.kill(Number(readFileSync(PID_FILE, 'utf8')), 0);
    return true;
  } catch {
    return false;
  }
}

function address(arg: string | undefined): `0x${string}` {
  if (!arg || !isEvmAddress(arg)) throw new Error(`expected an address (0x and 40 hex digits), got ${arg ?? 'nothing'}`);
  return arg as `0x${string}`;
}

/**
 * A new devnet is a new chain: what the crypto service remembers of the last one (cursor,
 * block hashes, the hot wallet's nonce and signed payouts) would not match it.
 */
async function forgetPreviousDevnet(): Promise<void> {
  const { db, close } = createCryptoDatabase(process.env.DATABASE_URL ?? 'postgresql://root@127.0.0.1:5432/payments', 1);
  try {
    const network = 'Ethereum';
    await db.$transaction([
      db.chainCursor.deleteMany({ where: { network } }),
      db.chainBlock.deleteMany({ where: { network } }),
      db.payoutTransaction.deleteMany({ where: { network } }),
      db.payoutWallet.deleteMany({ where: { network } }),
    ]);
  } finally {
    await close();
  }
}

async function main([verb, ...args]: string[]): Promise<void> {
  switch (verb) {
    case 'start': {
      if (running()) {
        console.log(`devnet already running (pid ${readFileSync(PID_FILE, 'utf8')}); settings in ${ENV_FILE}`);
        return;
      }
      mkdirSync(path.join(STATE, 'logs'), { recursive: true });
      const port = Number(process.env.DEVNET_PORT ?? 8545);
      const node = await startDevnetNode({ port, detached: true, intervalMs: 1000, logFile: path.join(STATE, 'logs', 'devnet.log') });
      writeFileSync(PID_FILE, String(node.pid));
      const d = await openDevnet(node.url);
      await forgetPreviousDevnet();
      writeFileSync(
        ENV_FILE,
        [
          '# Written by scripts/devnet.ts start: the crypto service on the local devnet (Ethereum settings).',
          '# Hardhat development keys, publicly known: never for real money.',
          `EVM_RPC_URL_ETHEREUM=${d.url}`,
          `USDT_CONTRACT_ETHEREUM=${d.token}`,
          `DEPOSIT_XPUB=${d.xpub}`,
          `PAYOUT_PRIVATE_KEY=${d.hotWalletKey}`,
          // A block a second: three confirmations take about three seconds.
          'CONFIRMATIONS_ETHEREUM=3',
          '',
        ].join('\n'),
      );
      console.log(`devnet: ${d.url} (chain id ${d.chainId}), USDT-like token ${d.token} with ${d.decimals} decimals, a block a second`);
      console.log(`  payer account:  ${d.payer.address}  holds 1000000 USDT; pay with: pnpm devnet:pay <address> <amount>`);
      console.log(`  hot wallet:     ${d.hotWallet.address}  holds 1000000 USDT (PAYOUT_PRIVATE_KEY)`);
      console.log(`  settings:       ${ENV_FILE}`);
      return;
    }
    case 'pay': {
      const d = await connect();
      const to = address(args[0]);
      const amount = args[1];
      if (!amount || !/^[0-9]+(\.[0-9]{1,6})?$/.test(amount)) throw new Error(`expected an amount such as 25 or 25.5, got ${amount ?? 'nothing'}`);
      const hash = await d.transfer(d.payer, to, amount);
      console.log(`sent ${amount} USDT from ${d.payer.address} to ${to}: ${hash}`);
      return;
    }
    case 'balance': {
      const d = await connect();
      const who = address(args[0]);
      console.log(`${fromUnits(await d.balanceOf(who), d.decimals).toFixed()} USDT at ${who}`);
      return;
    }
    case 'stop': {
      if (running()) process.kill(Number(readFileSync(PID_FILE, 'utf8')), 'SIGTERM');
      rmSync(PID_FILE, { force: true });
      rmSync(ENV_FILE, { force: true });
      return;
    }
    default:
      throw new Error('usage: tsx scripts/devnet.ts start | pay <address> <amount> | balance <address> | stop');
  }
}

main(process.argv.slice(2)).catch((err: Error) => {
  console.error(err.message);
  process.exit(1);
});
