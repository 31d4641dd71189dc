import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { createTestClient, http, parseEther, parseUnits, type Address } from 'viem';
import { metricsRegistry } from '@pay/runtime';
import { registerMerchant, signedRequest, startCryptoApp, type CryptoTestApp, type TestMerchant } from '../../../test/test-support';
import { watchChains } from '../../background';
import { trackTransfers } from '../transactions/tracker';
import { connectLiveChain } from '../../chains/evm/live-chain';
import { DEPOSIT_ACCOUNT_PATH, DEVNET_MNEMONIC, startDevnet, type Devnet } from '../../chains/evm/devnet';
import { money } from '../../shared/money';
import type { SolvencyLine } from './line';
import { checkSolvency, solvencyOf } from './solvency';
import { forgetDevnet, sweepsWhere } from '../../../test/chains/store';

// Live USDT_ERC20 on a local devnet: the solvency check, its metrics, the operator's report
// and sweep (the CLI, as an operator runs it). The Ethereum rows of the watcher's and signer's
// tables belong to whichever devnet file runs (they clean them first). Other files' live
// ledger rows share this database, so figures are compared before and after, never absolute.
const REQUIRED = 2;
let devnet: Devnet;
let ctx: CryptoTestApp;
let m: TestMerchant;

function envFor(d: Devnet): Record<string, string> {
  // A withdrawal of 40 is below the live minimum that pays Ethereum's gas; the devnet's gas is free.
  return { EVM_RPC_URL_ETHEREUM: d.url, USDT_CONTRACT_ETHEREUM: d.token, DEPOSIT_XPUB: d.xpub, CONFIRMATIONS_ETHEREUM: String(REQUIRED), WITHDRAWAL_MINIMUMS: 'USDT_ERC20=1' };
}

beforeAll(async () => {
  devnet = await startDevnet();
  ctx = await startCryptoApp({ env: envFor(devnet), live: { runsPayouts: true, payoutKey: devnet.hotWalletKey } });
  const db = ctx.deps.db;
  await db.$transaction((tx) => forgetDevnet(tx, 'Ethereum'));
  await ctx.live!.signer!.register(); // this devnet's hot wallet
  m = await registerMerchant(ctx.app); // its first key is live
  await watchChains(ctx.deps); // this replica now leads Ethereum's watcher
}, 60_000);

afterAll(async () => {
  await ctx?.close();
  await devnet?.stop();
});

const tokens = (units: bigint) => money(units.toString()).div(money(10).pow(devnet.decimals));
const line = () => solvencyOf(ctx.deps, ctx.live!.holdings, 'Ethereum', 'USDT_ERC20');
const pass = async () => {
  await watchChains(ctx.deps);
  await trackTransfers(ctx.deps);
};
const invoice = async (amount: number) => {
  const res = await request(ctx.app).post('/api/v1/invoices').set('X-Api-Key', m.apiKey).send({ amount, currency: 'USDT_ERC20' });
  expect(res.status).toBe(201);
  return res.body.data as { id: string; address: Address };
};
const delta = (after: SolvencyLine, before: SolvencyLine) => ({
  hotWallets: after.onChain.hotWallets.sub(before.onChain.hotWallets).toNumber(),
  deposits: after.onChain.deposits.sub(before.onChain.deposits).toNumber(),
  depositAddresses: after.onChain.depositAddresses - before.onChain.depositAddresses,
  available: after.owed.available.sub(before.owed.available).toNumber(),
  pending: after.owed.pending.sub(before.owed.pending).toNumber(),
  unsentWithdrawals: after.owed.unsentWithdrawals.sub(before.owed.unsentWithdrawals).toNumber(),
  gap: after.gap.sub(before.gap).toNumber(),
});
const gauge = async (name: string) => (await metricsRegistry.getSingleMetric(name)!.get()).values;

/**
 * The operator's CLI (src/cli.ts) as `pnpm --filter crypto <command>` runs it, stdin given,
 * from a shell holding the workers' settings, their payout key file included: a tool that
 * serves nothing is not the API process that must refuse the key.
 */
function cli(args: string[], stdin = ''): Promise<{ code: number | null; out: string; err: string }> {
  const keyFile = path.join(mkdtempSync(path.join(tmpdir(), 'payout-key-')), 'key');
  writeFileSync(keyFile, devnet.hotWalletKey, { mode: 0o600 });
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, '..', '..', 'cli.ts'), ...args], {
      cwd: path.join(__dirname, '..', '..', '..'),
      env: { ...process.env, ...envFor(devnet), PAYOUT_PRIVATE_KEY_FILE: keyFile },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, out, err }));
    child.stdin.end(stdin);
  });
}

let open: { id: string; address: Address };
let paid: { id: string; address: Address }[];

describe('solvency on an EVM devnet', () => {
  it('on chain (hot wallet + deposit addresses) against owed (available + pending + withdrawals not yet sent): the gap is what the fees left', async () => {
    const before = await line();
    paid = [await invoice(100), await invoice(50)];
    open = await invoice(80);
    await devnet.transfer(devnet.payer, paid[0]!.address, '100');
    await devnet.transfer(devnet.payer, paid[1]!.address, '50');
    await devnet.transfer(devnet.payer, open.address, '30');
    await devnet.mine(REQUIRED);
    await pass();
    const credited = await line();
    // 180 arrived at three addresses; 99% of it is the merchant's (feePercent 1).
    expect(delta(credited, before)).toEqual({ hotWallets: 0, deposits: 180, depositAddresses: 3, available: 178.2, pending: 0, unsentWithdrawals: 0, gap: 1.8 });

    // Seen, not yet confirmed: on chain already, and owed as pending.
    await devnet.transfer(devnet.payer, open.address, '20');
    await pass();
    const seen = await line();
    expect(delta(seen, credited)).toMatchObject({ deposits: 20, depositAddresses: 0, available: 0, pending: 19.8, gap: 0.2 });
    await devnet.mine(REQUIRED);
    await pass();

    // A withdrawal not yet sent (no worker runs here): out of available, still owed to its recipient (net of its 1% fee).
    const beforeWithdrawal = await line();
    const res = await signedRequest(ctx.app, m, 'post', '/api/v1/withdrawals', { toAddress: devnet.payer.address, amount: 40, currency: 'USDT_ERC20' });
    expect([res.status, res.body.error]).toEqual([201, undefined]);
    const withdrawn = await line();
    expect(delta(withdrawn, beforeWithdrawal)).toMatchObject({ available: -40, unsentWithdrawals: 39.6, gap: 0.4 });

    // The chain side is the chain's: the hot wallet's tokens and coin as the node reports them.
    expect(withdrawn.hotWallets).toEqual([{ address: devnet.hotWallet.address, tokens: tokens(await devnet.balanceOf(devnet.hotWallet.address)) }]);
    expect(withdrawn.gas.balance.toFixed()).toBe(money((await devnet.client.getBalance({ address: devnet.hotWallet.address })).toString()).div(1e18).toFixed());
    expect(withdrawn.gas.symbol).toBe('ETH');
    expect(withdrawn.gas.payouts).toBe(withdrawn.gas.balance.div(withdrawn.gas.perPayout).floor().toNumber());
    expect(withdrawn.gas.perPayout.gt(0)).toBe(true);
  });

  it('the periodic check runs where the network’s watcher leads and exports the metrics; a replica that does not lead exports nothing', async () => {
    await watchChains(ctx.deps);
    const lines = await checkSolvency(ctx.deps, ctx.live!.holdings);
    expect(lines.map((l) => `${l.network} ${l.currency}`)).toEqual(['Ethereum USDT_ERC20']);
    const labels = { network: 'Ethereum', currency: 'USDT_ERC20' };
    expect(await gauge('crypto_solvency_gap')).toEqual([{ labels, value: lines[0]!.gap.toNumber() }]);
    expect(await gauge('crypto_hot_wallet_token_balance')).toEqual([{ labels, value: lines[0]!.onChain.hotWallets.toNumber() }]);
    expect(await gauge('crypto_hot_wallet_gas_payouts')).toEqual([{ labels: { network: 'Ethereum' }, value: lines[0]!.gas.payouts }]);

    // A second replica: the lease is the first one's, so it checks nothing and reports nothing (this process's series go).
    const other = (await connectLiveChain(ctx.deps.config, ctx.deps.db, ctx.deps.clock, ctx.deps.logger, { runsPayouts: false }))!;
    try {
      expect(await other.holdings.leads('Ethereum')).toBe(false);
      expect(await checkSolvency(ctx.deps, other.holdings)).toEqual([]);
      expect(await gauge('crypto_solvency_gap')).toEqual([]);
      expect(await gauge('crypto_hot_wallet_gas_payouts')).toEqual([]);
    } finally {
      await other.close();
    }
    expect(await checkSolvency(ctx.deps, ctx.live!.holdings)).toHaveLength(1);
  });

  it('the sweep (the CLI, seed phrase on stdin): each deposit address gets its gas from the hot wallet first, then its tokens go to the hot wallet; an open invoice’s address is left; the gap does not move', async () => {
    const before = await line();
    const hotBefore = await devnet.balanceOf(devnet.hotWallet.address);
    for (const inv of [...paid, open]) expect(await devnet.client.getBalance({ address: inv.address })).toBe(0n);

    const dry = await cli(['sweep', '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.out).toContain(`${paid[0]!.address} `);
    expect(dry.out).toMatch(new RegExp(`${open.address} .*: 50: left, its invoice is open`));
    expect(dry.out).toContain('2 address(es) would be swept (dry run)');
    expect(await devnet.balanceOf(paid[0]!.address)).toBe(parseUnits('100', 18));

    // A seed that is not DEPOSIT_XPUB's is refused before anything is sent.
    const wrong = await cli(['sweep', '--path', "m/44'/60'/0'"], `${DEVNET_MNEMONIC}\n${devnet.hotWalletKey}\n`);
    expect(wrong.code).toBe(1);
    expect(wrong.err).toContain("not DEPOSIT_XPUB's private half");
    expect(await devnet.balanceOf(paid[0]!.address)).toBe(parseUnits('100', 18));

    const run = await cli(['sweep', '--path', DEPOSIT_ACCOUNT_PATH], `${DEVNET_MNEMONIC}\n${devnet.hotWalletKey}\n`);
    expect(run.err).toBe('');
    expect(run.code).toBe(0);
    expect(run.out).toContain(`swept 100 USDT_ERC20 from ${paid[0]!.address}`);
    expect(run.out).toContain(`swept 50 USDT_ERC20 from ${paid[1]!.address}`);
    expect(run.out).toContain('(gas sent first: ');
    expect(run.out).toContain('done: 2 address(es) swept');
    for (const inv of paid) {
      expect(await devnet.balanceOf(inv.address)).toBe(0n);
      // It was funded with the gas, and paid it.
      expect(await devnet.client.getTransactionCount({ address: inv.address })).toBe(1);
    }
    expect(await devnet.balanceOf(open.address)).toBe(parseUnits('50', 18));
    expect(await devnet.balanceOf(devnet.hotWallet.address)).toBe(hotBefore + parseUnits('150', 18));
    const after = await line();
    expect(delta(after, before)).toMatchObject({ hotWallets: 150, deposits: -150, depositAddresses: -2, available: 0, pending: 0, unsentWithdrawals: 0, gap: 0 });
    expect(after.sweptTo).toEqual([]); // to the hot wallet: counted there, once
    expect(after.gas.balance.lt(before.gas.balance)).toBe(true);
    // Each token transfer was recorded before it was broadcast (chains/evm/sweeps.ts); mined, settled at depth later.
    const rows = await sweepsWhere(ctx.deps.db, { network: 'Ethereum' });
    expect(rows.map((r) => [r.fromAddress, r.toAddress, r.units.toFixed(), r.status])).toEqual([
      [paid[0]!.address, devnet.hotWallet.address, parseUnits('100', 18).toString(), 'Signed'],
      [paid[1]!.address, devnet.hotWallet.address, parseUnits('50', 18).toString(), 'Signed'],
    ]);
    // The periodic check's metric after the sweep: the same gap as the line.
    await watchChains(ctx.deps);
    const [checked] = await checkSolvency(ctx.deps, ctx.live!.holdings);
    expect(checked!.gap.toFixed()).toBe(after.gap.toFixed());
    expect(await gauge('crypto_solvency_gap')).toEqual([{ labels: { network: 'Ethereum', currency: 'USDT_ERC20' }, value: after.gap.toNumber() }]);

    // A second run: the earlier sweeps are settled at depth, and nothing is left to sweep but the open invoice's address.
    await devnet.mine(REQUIRED);
    const rerun = await cli(['sweep', '--path', DEPOSIT_ACCOUNT_PATH], `${DEVNET_MNEMONIC}\n${devnet.hotWalletKey}\n`);
    expect([rerun.code, rerun.err]).toEqual([0, '']);
    expect(rerun.out).toContain('nothing to sweep');
    expect((await sweepsWhere(ctx.deps.db, { network: 'Ethereum', status: 'Confirmed' })).length).toBe(2);
  }, 120_000);

  it('a shortfall and a hot wallet low on gas: the gap goes negative and the gas covers few payouts, in the metrics and the report (exit 2)', async () => {
    // Tokens leave the hot wallet behind the ledger's back (a leaked key, a manual transfer).
    await devnet.transferUnits(devnet.hotWallet, devnet.payer.address, await devnet.balanceOf(devnet.hotWallet.address));
    await watchChains(ctx.deps); // the watcher's pass renews the lease, as the background's does
    const [l] = await checkSolvency(ctx.deps, ctx.live!.holdings);
    expect(l!.onChain.hotWallets.toNumber()).toBe(0);
    expect(l!.gap.lt(0)).toBe(true);
    expect(await gauge('crypto_solvency_gap')).toEqual([{ labels: { network: 'Ethereum', currency: 'USDT_ERC20' }, value: l!.gap.toNumber() }]);

    // Three payouts' worth of gas left.
    await createTestClient({ mode: 'hardhat', transport: http(devnet.url) }).setBalance({ address: devnet.hotWallet.address, value: parseEther('0.0001') });
    const [low] = await checkSolvency(ctx.deps, ctx.live!.holdings);
    expect(low!.gas.payouts).toBe(money('0.0001').div(low!.gas.perPayout).floor().toNumber());
    expect(low!.gas.payouts).toBeLessThan(50); // the CryptoHotWalletGasLow alert's threshold
    expect(await gauge('crypto_hot_wallet_gas_payouts')).toEqual([{ labels: { network: 'Ethereum' }, value: low!.gas.payouts }]);

    const report = await cli(['solvency']);
    expect(report.code).toBe(2);
    expect(report.out).toContain('Ethereum USDT_ERC20: SHORT');
    expect(report.out).toContain(`  gap        ${low!.gap.toFixed()}  (on chain - owed)`);
    expect(report.out).toContain(`hot wallet ${devnet.hotWallet.address}: 0`);
  }, 60_000);
});
