import request from 'supertest';
import { createTestClient, http, parseEther, toHex, type Address } from 'viem';
import { mnemonicToAccount, privateKeyToAccount } from 'viem/accounts';
import { eventually, startRpcProxy, type RpcProxy } from '@pay/testing';
import { registerMerchant, startCryptoApp, type CryptoTestApp, type TestMerchant } from '../../../test/test-support';
import { watchChains } from '../../background';
import { trackTransfers } from '../transactions/tracker';
import { tokenOf } from '../../chains/evm/config';
import { connectLiveChain } from '../../chains/evm/live-chain';
import { signSweep } from '../../chains/evm/sweeps';
import type { CryptoDeps } from '../../deps';
import { DEPOSIT_ACCOUNT_PATH, DEVNET_MNEMONIC, startDevnet, type Devnet } from '../../chains/evm/devnet';
import { finishSweeps, planSweep, readSweepSecrets, runSweep } from './sweep';
import { solvencyOf } from './solvency';
import { money } from '../../shared/money';
import { liveChainMap } from '../../chains/registry';
import { forgetSweeps, forgetWatcher, sweepByHash, sweepsWhere } from '../../../test/chains/store';
import { depositIndexesOf } from '../../../test/invoices/store';
import { transactionCount, transactionsWhere, transactionWhere } from '../../../test/transactions/store';

// Live USDT_ERC20 on a local devnet: deposits to an address after the operator swept it. The
// Ethereum rows of the watcher's and the sweep's tables belong to whichever devnet file runs (they clean them first).
const REQUIRED = 2;
let devnet: Devnet;
let ctx: CryptoTestApp;
let m: TestMerchant;

beforeAll(async () => {
  devnet = await startDevnet({ decimals: 6 });
  ctx = await startCryptoApp({
    // A made-up transfer fails soon once its liar is gone, so this file leaves no live transfer Pending for the next file's tracker.
    env: { EVM_RPC_URL_ETHEREUM: devnet.url, USDT_CONTRACT_ETHEREUM: devnet.token, DEPOSIT_XPUB: devnet.xpub, CONFIRMATIONS_ETHEREUM: String(REQUIRED), EVM_DROPPED_AFTER_MS: '2000' },
    live: { runsPayouts: false },
  });
  const db = ctx.deps.db;
  await db.$transaction(async (tx) => {
    await forgetWatcher(tx, 'Ethereum');
    await forgetSweeps(tx, 'Ethereum'); // an earlier devnet's sweeps
  });
  m = await registerMerchant(ctx.app); // its first key is live
  await watchChains(ctx.deps); // the watcher starts following from here
}, 60_000);

afterAll(async () => {
  await ctx?.close();
  await devnet?.stop();
});

const invoice = async (amount: number) => {
  const res = await request(ctx.app).post('/api/v1/invoices').set('X-Api-Key', m.apiKey).send({ amount, currency: 'USDT_ERC20' });
  expect(res.status).toBe(201);
  return res.body.data as { id: string; address: Address };
};
const invoiceNow = async (id: string) => (await request(ctx.app).get(`/api/v1/invoices/${id}`).set('X-Api-Key', m.apiKey)).body.data;
const available = async () => {
  const b = (await request(ctx.app).get('/api/v1/withdrawals/balance').set('X-Api-Key', m.apiKey)).body.data;
  return b.balances.find((x: { currency: string }) => x.currency === 'USDT_ERC20').available as number;
};
const pass = async () => {
  await watchChains(ctx.deps);
  await trackTransfers(ctx.deps);
};
const usdt = () => {
  const net = ctx.live!.network('Ethereum');
  return { net, token: tokenOf(net, 'USDT_ERC20') };
};
/** The operator's sweep of every settled address to the hot wallet, in this process (the CLI's steps: earlier sweeps finished, a plan, the transfers). */
const sweep = async (to: Address = devnet.hotWallet.address) => {
  const secrets = readSweepSecrets(`${DEVNET_MNEMONIC}\n${devnet.hotWalletKey}\n`, devnet.xpub, DEPOSIT_ACCOUNT_PATH);
  const unsettled = await finishSweeps(ctx.deps, [usdt().net], () => REQUIRED);
  const items = await planSweep(ctx.deps, [usdt()]);
  return Object.assign(await runSweep(ctx.deps, items, new Map([['USDT_ERC20', usdt()]]), secrets, to, ctx.deps.config.PAYOUT_GAS_LIMIT), { unsettled, items });
};
/** A paid invoice: its deposit confirmed and credited. */
const paid = async (amount: number) => {
  const inv = await invoice(amount);
  await devnet.transfer(devnet.payer, inv.address, String(amount));
  await devnet.mine(REQUIRED);
  await pass();
  expect(await invoiceNow(inv.id)).toMatchObject({ status: 'Paid', amountReceived: amount });
  return inv;
};

/** A second live connection to the devnet through a JSON-RPC proxy that can invent transfers, leading the watcher while a test runs. */
async function throughProxy() {
  const proxy: RpcProxy = await startRpcProxy(devnet.url);
  await ctx.live!.close(); // gives the lease up
  const config = { ...ctx.deps.config, EVM_RPC_URL_ETHEREUM: proxy.url };
  const chain = (await connectLiveChain(config, ctx.deps.db, ctx.deps.clock, ctx.deps.logger, { runsPayouts: false }))!;
  const deps: CryptoDeps = { ...ctx.deps, config, chains: { ...ctx.deps.chains, live: liveChainMap(chain) } };
  const pass = async () => {
    await watchChains(deps);
    await trackTransfers(deps);
  };
  const stop = async () => {
    await chain.close();
    await proxy.stop();
  };
  return { proxy, pass, stop };
}

/** A transfer a dishonest node makes up to `to` at the head, then deep enough to be credited: resolves with its record, if any. */
async function invented(to: Address, amount: number) {
  const t = await throughProxy();
  try {
    await t.pass();
    await devnet.mine(1);
    const units = BigInt(amount) * 10n ** BigInt(devnet.decimals);
    const { txHash } = await t.proxy.inventTransfer({ token: devnet.token, from: devnet.payer.address, to, units, blockNumber: await devnet.client.getBlockNumber() });
    await t.pass();
    await devnet.mine(REQUIRED + 2);
    for (let i = 0; i < 3; i++) await t.pass();
    return (await transactionsWhere(ctx.deps.db, { network: 'Ethereum', txHash }))[0] ?? null;
  } finally {
    await t.stop();
    // The honest node has no such transaction: once EVM_DROPPED_AFTER_MS has passed it fails, and is never credited.
    await eventually(async () => {
      await trackTransfers(ctx.deps);
      expect(await transactionCount(ctx.deps.db, { network: 'Ethereum', toAddress: to, status: 'Pending' })).toBe(0);
    }, 30_000, 250);
  }
}

describe('deposits to a swept address', () => {
  it('a payer who pays a swept address again is credited: what the sweep moved out is not held against the new deposit', async () => {
    const inv = await invoice(10);
    await devnet.transfer(devnet.payer, inv.address, '10');
    await devnet.mine(REQUIRED);
    await pass();
    expect(await invoiceNow(inv.id)).toMatchObject({ status: 'Paid', amountReceived: 10 });

    const swept = await sweep();
    expect(swept.map((s) => s.item.address)).toContain(inv.address);
    expect(await devnet.balanceOf(inv.address)).toBe(0n);
    // Recorded before it was broadcast; mined, not yet at depth: Signed.
    const sweepTx = swept.find((s) => s.item.address === inv.address)!.tx;
    expect(await sweepByHash(ctx.deps.db, sweepTx)).toMatchObject({
      network: 'Ethereum', currency: 'USDT_ERC20', fromAddress: inv.address, toAddress: devnet.hotWallet.address, status: 'Signed', nonce: 0n,
    });

    // The payer pays again (twice by mistake): 5 arrive at the address, which now holds 5, not the 15 it was credited.
    const before = await available();
    const again = await devnet.transfer(devnet.payer, inv.address, '5');
    await devnet.mine(REQUIRED + 1);
    for (let i = 0; i < 3; i++) await pass();
    expect(await transactionWhere(ctx.deps.db, { network: 'Ethereum', txHash: again })).toMatchObject({ status: 'Confirmed' });
    expect(await invoiceNow(inv.id)).toMatchObject({ status: 'Paid', amountReceived: 15 });
    expect(await available()).toBeCloseTo(before + 4.95, 6);
    // The deposit's check settled the sweep it needed, at depth.
    const settled = await sweepByHash(ctx.deps.db, sweepTx);
    expect(settled).toMatchObject({ status: 'Confirmed', blockNumber: (await devnet.client.getTransactionReceipt({ hash: sweepTx })).blockNumber });
    expect(settled.movedUnits!.toFixed()).toBe('10000000');
  }, 120_000);

  it('a dishonest node cannot invent a deposit to a swept address: what was swept counts once, against what was credited', async () => {
    const inv = await paid(10);
    await sweep();
    expect(await devnet.balanceOf(inv.address)).toBe(0n);
    const before = await available();
    // Credited 10, swept 10 out, holds 0: an invented 10 would need 10 there.
    const t = await invented(inv.address, 10);
    if (t) expect(t.status).toBe('Pending'); // seen (one provider is all there is), never confirmed
    expect(await invoiceNow(inv.id)).toMatchObject({ amountReceived: 10 });
    expect(await available()).toBe(before);
  }, 120_000);

  it('a sweep that reverted moved nothing: it is Failed at depth and counts nothing, so an invented deposit beside the unswept tokens is not credited', async () => {
    const inv = await paid(10);
    await devnet.pause(); // every token transfer reverts
    try {
      await expect(sweep()).rejects.toThrow(/reverted/);
    } finally {
      await devnet.unpause();
    }
    const [row] = await sweepsWhere(ctx.deps.db, { fromAddress: inv.address });
    if (!row) throw new Error('the sweep was not recorded');
    expect(row.status).toBe('Signed'); // mined and reverted, not yet at depth
    expect(await devnet.balanceOf(inv.address)).toBe(10_000_000n);
    const before = await available();
    // Counting the signed 10 as gone would leave 10 + 10 - 10 = 10 owed against the 10 still there: the invented 10 would pass.
    const t = await invented(inv.address, 10);
    if (t) expect(t.status).toBe('Pending');
    expect(await available()).toBe(before);
    expect(await sweepByHash(ctx.deps.db, row.txHash)).toMatchObject({ status: 'Failed', reason: 'the token transfer reverted on chain' });
  }, 120_000);

  it('a sweep that crashed after it was recorded and before it was broadcast: the next run sends the same bytes, never a second transfer, and later deposits are credited', async () => {
    const inv = await paid(7);
    const index = (await depositIndexesOf(ctx.deps.db, [inv.id]))[0]!.depositIndex!;
    const owner = privateKeyToAccount(toHex(mnemonicToAccount(DEVNET_MNEMONIC, { accountIndex: 1, addressIndex: index }).getHdKey().privateKey!));
    // The run's first steps: the address's gas, then the transfer signed and written; the process dies there.
    await createTestClient({ mode: 'hardhat', transport: http(devnet.url) }).setBalance({ address: inv.address, value: parseEther('1') });
    const { net, token } = usdt();
    const fees = await net.client.estimateFeesPerGas();
    const signed = await signSweep(ctx.deps.db, ctx.deps.clock, net, token, owner, devnet.hotWallet.address, 7_000_000n, { gas: 100_000n, ...fees });
    expect(await devnet.balanceOf(inv.address)).toBe(7_000_000n);

    const run = await sweep();
    expect(run.unsettled.filter((s) => s.fromAddress === inv.address).map((s) => s.txHash)).toEqual([signed.txHash]); // sent again
    expect(run.items.filter((i) => i.address === inv.address && !i.skipped)).toEqual([]); // and nothing new signed for it
    expect(run.map((s) => s.item.address)).not.toContain(inv.address);
    const receipt = await devnet.client.waitForTransactionReceipt({ hash: signed.txHash as `0x${string}` });
    expect(receipt.status).toBe('success');
    expect(await devnet.balanceOf(inv.address)).toBe(0n);
    expect((await sweepsWhere(ctx.deps.db, { fromAddress: inv.address })).length).toBe(1);

    const before = await available();
    await devnet.transfer(devnet.payer, inv.address, '3');
    await devnet.mine(REQUIRED + 1);
    for (let i = 0; i < 2; i++) await pass();
    expect(await invoiceNow(inv.id)).toMatchObject({ amountReceived: 10 });
    expect(await available()).toBeCloseTo(before + 2.97, 6);
    expect(await sweepByHash(ctx.deps.db, signed.txHash)).toMatchObject({ status: 'Confirmed' });
  }, 120_000);

  it('solvency after a sweep to another address than the hot wallet (a cold wallet, --to): the swept tokens are still counted, the gap does not move', async () => {
    await paid(12);
    const line = () => solvencyOf(ctx.deps, ctx.live!.holdings, 'Ethereum', 'USDT_ERC20');
    const before = await line();
    const cold = devnet.deployer.address;
    const swept = await sweep(cold);
    const moved = swept.reduce((sum, s) => sum.add(s.item.amount), money(0));
    expect(moved.gte(12)).toBe(true);
    const after = await line();
    expect(after.onChain.deposits.sub(before.onChain.deposits).toFixed()).toBe(moved.neg().toFixed());
    expect(after.onChain.hotWallets.toFixed()).toBe(before.onChain.hotWallets.toFixed());
    // (This file registers no hot wallet, so its earlier sweeps' destination is listed too.)
    const sweptTo = (l: typeof after) => l.sweptTo.reduce((sum, w) => sum.add(w.tokens), money(0));
    expect(after.sweptTo.find((w) => w.address === cold)?.tokens.toFixed()).toBe(money(String(await devnet.balanceOf(cold))).div(1e6).toFixed());
    expect(sweptTo(after).sub(sweptTo(before)).toFixed()).toBe(moved.toFixed());
    expect(after.gap.toFixed()).toBe(before.gap.toFixed());
  }, 120_000);
});
