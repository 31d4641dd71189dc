import { spawn } from 'node:child_process';
import { mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import {
  createPublicClient, createTestClient, createWalletClient, encodeFunctionData, erc20Abi, getAbiItem, getAddress, http, parseUnits, type Address, type Hex, type PublicClient,
} from 'viem';
import { mnemonicToAccount, type HDAccount } from 'viem/accounts';

/** Hardhat's public development mnemonic: its accounts start with 10,000 ETH each. Never for real money. */
export const DEVNET_MNEMONIC = 'test test test test test test test test test test test junk';
/** The BIP-44 account whose extended public key is the devnet's DEPOSIT_XPUB. */
export const DEPOSIT_ACCOUNT_PATH = "m/44'/60'/1'";

/**
 * A local EVM chain for tests, the bench and `scripts/stack.sh devnet`: a Hardhat node
 * (its EDR engine runs offline) on a port of its own, with two real ERC-20s deployed, USDT
 * and USDC (devnet-token.sol: OpenZeppelin's ERC20PresetMinterPauser with the decimals of
 * the network it stands for, 6 as on Ethereum or 18 as on BSC; the service reads them from
 * the contract). Accounts: 0 deploys and mints, 1 pays invoices, 2 is the hot wallet; deposit
 * addresses derive from the same mnemonic's second account (m/44'/60'/1'), so no invoice is
 * paid to one of those.
 */
export type DevnetSymbol = 'USDT' | 'USDC';

export interface DevnetToken {
  address: Address;
  decimals: number;
}

export interface Devnet {
  url: string;
  chainId: number;
  tokens: Record<DevnetSymbol, DevnetToken>;
  /** USDT's contract and decimals (`tokens.USDT`). */
  token: Address;
  decimals: number;
  deployer: HDAccount;
  payer: HDAccount;
  hotWallet: HDAccount;
  /** The private key of the hot wallet, as the file PAYOUT_PRIVATE_KEY_FILE names holds it. */
  hotWalletKey: Hex;
  /** The extended public key of DEPOSIT_ACCOUNT_PATH, as DEPOSIT_XPUB takes it. */
  xpub: string;
  client: PublicClient;
  /** Sends `amount` tokens (a decimal string; USDT unless `symbol` says) from an account; resolves with the transaction hash once mined. */
  transfer(from: HDAccount, to: Address, amount: string, symbol?: DevnetSymbol): Promise<Hex>;
  /** The same transfer signed and not sent: sending these bytes again re-mines the same transaction. */
  signedTransfer(from: HDAccount, to: Address, amount: string, symbol?: DevnetSymbol): Promise<Hex>;
  /** Sends signed bytes; resolves with the hash once mined (with automine on). */
  sendRaw(raw: Hex): Promise<Hex>;
  /** Sends base units of the token (mined before it resolves). */
  transferUnits(from: HDAccount, to: Address, units: bigint, symbol?: DevnetSymbol): Promise<Hex>;
  balanceOf(address: Address, symbol?: DevnetSymbol): Promise<bigint>;
  /** USDT's Transfer logs in a block range: one eth_getLogs. */
  transferLogs(fromBlock: bigint, toBlock: bigint): Promise<unknown[]>;
  mint(to: Address, amount: string, symbol?: DevnetSymbol): Promise<void>;
  /** Pauses USDT: every transfer reverts until `unpause`. */
  pause(): Promise<void>;
  unpause(): Promise<void>;
  mine(blocks?: number): Promise<void>;
  snapshot(): Promise<Hex>;
  revert(id: Hex): Promise<void>;
  setAutomine(on: boolean): Promise<void>;
  /** Takes a transaction out of the node's pool, as if it had never been broadcast. */
  dropTransaction(hash: Hex): Promise<void>;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** The devnet's token contract, compiled from devnet-token.sol (see test/compile-devnet-token.ts). */
function tokenArtifact(): { abi: unknown[]; bytecode: Hex } {
  return require('./devnet-token.json');
}

export interface DevnetNode {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/**
 * Starts a Hardhat node. `intervalMs` mines a block that often besides one per transaction
 * (so confirmations grow on their own, as on a real network); `detached` leaves it running
 * after this process ends (scripts/stack.sh devnet), its output in `logFile`.
 */
export async function startDevnetNode(opts: { port?: number; chainId?: number; intervalMs?: number; detached?: boolean; logFile?: string } = {}): Promise<DevnetNode> {
  const port = opts.port ?? (await freePort());
  const dir = mkdtempSync(path.join(tmpdir(), 'devnet-'));
  const mining = opts.intervalMs ? `, mining: { auto: true, interval: ${opts.intervalMs} }` : '';
  writeFileSync(path.join(dir, 'hardhat.config.js'), `module.exports = { networks: { hardhat: { chainId: ${opts.chainId ?? 31337}${mining} } } };\n`);
  const cli = require.resolve('hardhat/internal/cli/bootstrap');
  const out = opts.logFile ? openSync(opts.logFile, 'a') : 'ignore';
  const child = spawn(process.execPath, [cli, 'node', '--hostname', '127.0.0.1', '--port', String(port)], {
    cwd: dir,
    detached: opts.detached ?? false,
    stdio: ['ignore', out, opts.detached ? out : 'pipe'],
    env: { ...process.env, HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true', DO_NOT_TRACK: '1' },
  });
  let stderr = '';
  child.stderr?.on('data', (d) => (stderr += d));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`hardhat node exited (${child.exitCode}): ${stderr}`);
    try {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}' });
      if (res.ok) {
        if (opts.detached) child.unref();
        return { url, pid: child.pid!, stop };
      }
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`hardhat node did not answer on ${url} within 30 s: ${stderr}`);
}

/** A devnet node of this process's own, with the tokens deployed (18 decimals unless told) and funded; `stop` ends the node. */
export async function startDevnet(opts: { port?: number; chainId?: number; decimals?: number } = {}): Promise<Devnet> {
  const node = await startDevnetNode(opts);
  try {
    return await openDevnet(node.url, { stop: node.stop, decimals: opts.decimals });
  } catch (err) {
    await node.stop();
    throw err;
  }
}

/**
 * The devnet at `url`: deploys the tokens (with `decimals`, 18 unless told) and funds the
 * payer and the hot wallet, or, given `tokens`, uses the ones deployed before.
 */
export async function openDevnet(
  url: string,
  opts: { tokens?: Record<DevnetSymbol, Address>; decimals?: number; stop?: () => Promise<void> } = {},
): Promise<Devnet> {
  const transport = http(url);
  const client = createPublicClient({ transport, cacheTime: 0 }) as PublicClient;
  const test = createTestClient({ mode: 'hardhat', transport });
  const deployer = mnemonicToAccount(DEVNET_MNEMONIC, { addressIndex: 0 });
  const payer = mnemonicToAccount(DEVNET_MNEMONIC, { addressIndex: 1 });
  const hotWallet = mnemonicToAccount(DEVNET_MNEMONIC, { addressIndex: 2 });
  const chainId = await client.getChainId();
  const chain = { id: chainId, name: 'devnet', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [url] } } };
  const wallet = (account: HDAccount) => createWalletClient({ account, chain, transport });
  const artifact = tokenArtifact();
  const abi = artifact.abi as unknown as typeof erc20Abi;
  const mined = async (hash: Hex) => {
    const r = await client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    if (r.status !== 'success') throw new Error(`devnet transaction ${hash} reverted`);
    return r;
  };
  const deploy = async (name: string, symbol: DevnetSymbol) =>
    (await mined(await wallet(deployer).deployContract({ abi: artifact.abi, bytecode: artifact.bytecode, args: [name, symbol, opts.decimals ?? 18] }))).contractAddress!;
  const addresses = opts.tokens ?? { USDT: await deploy('Tether USD', 'USDT'), USDC: await deploy('USD Coin', 'USDC') };
  const tokens = {} as Record<DevnetSymbol, DevnetToken>;
  for (const symbol of ['USDT', 'USDC'] as const) {
    const address = getAddress(addresses[symbol]);
    tokens[symbol] = { address, decimals: await client.readContract({ address, abi: erc20Abi, functionName: 'decimals' }) };
  }
  const token = tokens.USDT.address;
  const decimals = tokens.USDT.decimals;
  const admin = (functionName: 'pause' | 'unpause') =>
    wallet(deployer).writeContract({ address: token, abi: artifact.abi, functionName, args: [] }).then(mined).then(() => undefined);
  const devnet: Devnet = {
    url,
    chainId,
    tokens,
    token,
    decimals,
    deployer,
    payer,
    hotWallet,
    hotWalletKey: `0x${Buffer.from(hotWallet.getHdKey().privateKey!).toString('hex')}`,
    xpub: HDKey.fromMasterSeed(mnemonicToSeedSync(DEVNET_MNEMONIC)).derive(DEPOSIT_ACCOUNT_PATH).publicExtendedKey,
    client,
    transfer(from, to, amount, symbol = 'USDT') {
      return devnet.transferUnits(from, to, parseUnits(amount, tokens[symbol].decimals), symbol);
    },
    async transferUnits(from, to, units, symbol = 'USDT') {
      const hash = await wallet(from).writeContract({ address: tokens[symbol].address, abi, functionName: 'transfer', args: [to, units] });
      await mined(hash);
      return hash;
    },
    async signedTransfer(from, to, amount, symbol = 'USDT') {
      const request = await wallet(from).prepareTransactionRequest({
        to: tokens[symbol].address,
        data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, parseUnits(amount, tokens[symbol].decimals)] }),
      });
      return wallet(from).signTransaction(request);
    },
    async sendRaw(raw) {
      const hash = await client.sendRawTransaction({ serializedTransaction: raw });
      await mined(hash);
      return hash;
    },
    transferLogs: (fromBlock, toBlock) => client.getLogs({ address: token, event: getAbiItem({ abi: erc20Abi, name: 'Transfer' }), fromBlock, toBlock }),
    balanceOf: (address, symbol = 'USDT') => client.readContract({ address: tokens[symbol].address, abi: erc20Abi, functionName: 'balanceOf', args: [address] }),
    async mint(to, amount, symbol = 'USDT') {
      await mined(
        await wallet(deployer).writeContract({ address: tokens[symbol].address, abi: artifact.abi, functionName: 'mint', args: [to, parseUnits(amount, tokens[symbol].decimals)] }),
      );
    },
    pause: () => admin('pause'),
    unpause: () => admin('unpause'),
    mine: (blocks = 1) => test.mine({ blocks }),
    snapshot: () => test.snapshot(),
    revert: (id) => test.revert({ id }),
    setAutomine: (on) => test.setAutomine(on),
    dropTransaction: (hash) => test.dropTransaction({ hash }),
    stop: opts.stop ?? (async () => undefined),
  };
  if (!opts.tokens) {
    for (const symbol of ['USDT', 'USDC'] as const) {
      await devnet.mint(payer.address, '1000000', symbol);
      await devnet.mint(hotWallet.address, '1000000', symbol);
    }
  }
  return devnet;
}
