import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { mnemonicToAccount } from 'viem/accounts';
import type { Address } from 'viem';
import { eventsOf } from '@pay/webhooks';
import { eventually, startRpcProxy, type RpcCall, type RpcProxy } from '@pay/testing';
import { createLogger, metricsRegistry } from '@pay/runtime';
import { Writable } from 'node:stream';
import { registerMerchant, startCryptoApp, testKeyFor, type CryptoTestApp, type TestMerchant } from '../../../test/test-support';
import { trackTransfers } from '../../modules/transactions/tracker';
import { watchChains } from '../../background';
import { recordFoundTransfers } from '../../modules/transactions/transfers';
import { DEVNET_MNEMONIC, startDevnet, type Devnet } from './devnet';
import { connectLiveChain } from './live-chain';
import { money } from '../../shared/money';
import type { CryptoDeps } from '../../deps';
import { liveChainMap } from '../registry';
import { cursorOf, forgetSweeps, forgetWatcher } from '../../../test/chains/store';
import { depositIndexesOf } from '../../../test/invoices/store';
import { deleteTransactions, insertTransfers, transactionCount, transactionsWhere, transactionWhere } from '../../../test/transactions/store';
import { creditedBefore } from '../../modules/transactions/transfers';

// Live USDT_ERC20 and USDC_ERC20 on a real local chain (a Hardhat node, tokens of 6 decimals as on Ethereum), Ethereum's settings pointed at it.
// The Ethereum rows of the watcher's tables are this file's alone (payouts.devnet.test.ts uses BSC).
const REQUIRED = 3;
let devnet: Devnet;
let ctx: CryptoTestApp;
let m: TestMerchant;

function envFor(d: Devnet): Record<string, string> {
  return {
    EVM_RPC_URL_ETHEREUM: d.url,
    USDT_CONTRACT_ETHEREUM: d.tokens.USDT.address,
    USDC_CONTRACT_ETHEREUM: d.tokens.USDC.address,
    DEPOSIT_XPUB: d.xpub,
    CONFIRMATIONS_ETHEREUM: String(REQUIRED),
    EVM_MAX_BLOCK_RANGE: '2',
    EVM_RESCAN_BLOCKS: String(REQUIRED + 1),
    EVM_LEASE_MS: '3000',
  };
}

beforeAll(async () => {
  devnet = await startDevnet({ decimals: 6 });
  ctx = await startCryptoApp({ env: envFor(devnet), live: { runsPayouts: false } });
  await forgetWatcher(ctx.deps.db, 'Ethereum');
  await forgetSweeps(ctx.deps.db, 'Ethereum'); // an earlier devnet's sweeps (sweep.devnet.test.ts)
  m = await registerMerchant(ctx.app); // its first key is live
  await watchChains(ctx.deps); // the watcher starts following from here
  // A Hardhat node and its token contracts deployed, then the app: as page.devnet.test gives
  // its devnet and service, 180 s on this loaded machine. A hook that gave up early left its
  // start running into the next file (now stopped when this file ends: jest/environment.ts).
}, 180_000);

afterAll(async () => {
  // The worker's database outlives this file, and so would the live Ethereum transfers left
  // Pending here (the liar's inventions are never mined; some honest ones lack depth): the
  // next devnet file's workers-only process, connected to BSC alone, would log an error for
  // each on every pass. Honest ones settle at depth; what remains is this file's own, removed.
  if (ctx) {
    await devnet.mine(REQUIRED + 1);
    await trackTransfers(ctx.deps);
    await deleteTransactions(ctx.deps.db, { network: 'Ethereum', isTest: false, status: 'Pending' });
    await ctx.close();
  }
  await devnet?.stop();
});

const invoice = async (amount: number, currency = 'USDT_ERC20') => {
  const res = await request(ctx.app).post('/api/v1/invoices').set('X-Api-Key', m.apiKey).send({ amount, currency });
  expect(res.status).toBe(201);
  return res.body.data as { id: string; address: Address; status: string };
};
let testMerchant: TestMerchant | undefined;
const testKey = async () => (testMerchant ??= await testKeyFor(ctx.app, m));
const invoiceNow = async (id: string) => (await request(ctx.app).get(`/api/v1/invoices/${id}`).set('X-Api-Key', m.apiKey)).body.data;
const balance = async (currency = 'USDT_ERC20') => {
  const b = (await request(ctx.app).get('/api/v1/withdrawals/balance').set('X-Api-Key', m.apiKey)).body.data;
  return b.balances.find((x: { currency: string }) => x.currency === currency);
};
/** One pass of what the background does: find transfers, then apply confirmations. */
const pass = async () => {
  await watchChains(ctx.deps);
  await trackTransfers(ctx.deps);
};

describe('live USDT on an EVM devnet: deposits', () => {
  it('reads the token decimals from the contract and derives each invoice address from the xpub at the next index', async () => {
    expect(devnet.decimals).toBe(6);
    expect(ctx.live!.network('Ethereum').tokens.map((t) => [t.currency, t.decimals])).toEqual([['USDT_ERC20', 6], ['USDC_ERC20', 6]]);
    expect(ctx.live!.paymentToken('USDC_ERC20')).toEqual({ chainId: devnet.chainId, contract: devnet.tokens.USDC.address, decimals: 6 });
    const a = await invoice(1);
    const b = await invoice(1);
    const rows = await depositIndexesOf(ctx.deps.db, [a.id, b.id]);
    // Later indexes for later invoices (the BSC test file may take some in between: one index space).
    expect(rows[1]!.depositIndex).toBeGreaterThan(rows[0]!.depositIndex!);
    // The key behind the address is the wallet's m/44'/60'/1'/0/index (the xpub's account): whoever holds the seed can sweep it.
    for (const r of rows) expect(r.address).toBe(mnemonicToAccount(DEVNET_MNEMONIC, { accountIndex: 1, addressIndex: r.depositIndex! }).address);
  });

  it('refuses live currencies it has no chain for, as before', async () => {
    for (const currency of ['USDT_BEP20', 'USDC_BEP20', 'USDT_TRC20']) {
      const res = await request(ctx.app).post('/api/v1/invoices').set('X-Api-Key', m.apiKey).send({ amount: 1, currency });
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe('CURRENCY_NOT_ENABLED');
    }
  });

  it('a deposit turns the invoice Paid exactly at the required depth, crediting net of fee only then', async () => {
    const inv = await invoice(10);
    const before = await balance();
    const txHash = await devnet.transfer(devnet.payer, inv.address, '10'); // block B: 1 confirmation
    await pass();
    const t = await transactionWhere(ctx.deps.db, { network: 'Ethereum', txHash });
    expect(t).toMatchObject({ invoiceId: inv.id, status: 'Pending', confirmations: 1, fromAddress: devnet.payer.address, toAddress: inv.address });
    expect(t.amount.toString()).toBe('10');
    expect(await balance()).toMatchObject({ available: before.available, pending: before.pending + 9.9 });
    await devnet.mine(1); // 2 confirmations
    await pass();
    expect((await invoiceNow(inv.id)).status).toBe('Pending');
    expect((await balance()).available).toBe(before.available);
    await devnet.mine(1); // 3: the required depth
    await pass();
    expect(await invoiceNow(inv.id)).toMatchObject({ status: 'Paid', amountReceived: 10 });
    expect(await balance()).toMatchObject({ available: before.available + 9.9, pending: before.pending });
    const events = await eventsOf(ctx.deps.db, { merchantId: m.merchantId, isTest: false });
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['transaction.confirmed', 'invoice.paid']));
  });

  it('USDC is live beside USDT: a USDC invoice is paid in USDC, and USDT sent to its address does not pay it', async () => {
    const inv = await invoice(8, 'USDC_ERC20');
    const before = await balance('USDC_ERC20');
    const usdt = await devnet.transfer(devnet.payer, inv.address, '8'); // the wrong token
    const usdc = await devnet.transfer(devnet.payer, inv.address, '8', 'USDC');
    await devnet.mine(REQUIRED);
    await pass();
    await pass();
    expect(await transactionCount(ctx.deps.db, { txHash: usdt })).toBe(0);
    expect(await transactionWhere(ctx.deps.db, { txHash: usdc })).toMatchObject({ currency: 'USDC_ERC20', status: 'Confirmed' });
    expect(await invoiceNow(inv.id)).toMatchObject({ status: 'Paid', amountReceived: 8 });
    expect((await balance('USDC_ERC20')).available).toBeCloseTo(before.available + 7.92, 6);
  });

  it('finding 10: live crediting never waits behind test mode: 600 older sandbox transfers leave a live deposit credited in one pass', async () => {
    const testInvoice = (await request(ctx.app).post('/api/v1/invoices').set('X-Api-Key', (await testKey()).apiKey).send({ amount: 1, currency: 'USDT_ERC20' })).body.data;
    const inv = await invoice(3);
    await devnet.transfer(devnet.payer, inv.address, '3');
    await devnet.mine(REQUIRED);
    // Sandbox load, older than the live deposit. Just older: the test files beside this one share
    // the database, and their own test-mode transfers must not wait behind these for long.
    const older = new Date(Date.now() - 1000);
    await insertTransfers(
      ctx.deps.db,
      Array.from({ length: 600 }, () => ({
        invoiceId: testInvoice.id, merchantId: m.merchantId, isTest: true, txHash: `0x${randomBytes(32).toString('hex')}`, fromAddress: devnet.payer.address,
        toAddress: testInvoice.address, amount: '0.01', currency: 'USDT_ERC20' as const, network: 'Ethereum' as const,
        requiredConfirmations: 1_000_000, createdAt: older, // sandbox: far from confirmed
      })),
    );
    try {
      await watchChains(ctx.deps);
      await trackTransfers(ctx.deps, 'live'); // one pass of the background's live tracker (before the fix: the one tracker of both modes)
      expect(await invoiceNow(inv.id)).toMatchObject({ status: 'Paid', amountReceived: 3 });
    } finally {
      await deleteTransactions(ctx.deps.db, { invoiceId: testInvoice.id });
    }
  });

  it('a partial payment, then the rest: PartiallyPaid, then Paid', async () => {
    const inv = await invoice(10);
    await devnet.transfer(devnet.payer, inv.address, '4');
    await devnet.mine(REQUIRED);
    await pass();
    expect(await invoiceNow(inv.id)).toMatchObject({ status: 'PartiallyPaid', amountReceived: 4 });
    await devnet.transfer(devnet.payer, inv.address, '6.5');
    await devnet.mine(REQUIRED);
    await pass();
    expect(await invoiceNow(inv.id)).toMatchObject({ status: 'Paid', amountReceived: 10.5 });
  });

  it('a transfer reorganised away before its depth is never credited; mined again, it counts from its new block', async () => {
    const inv = await invoice(5);
    const before = await balance();
    const snapshot = await devnet.snapshot();
    // Signed here and kept, so the same transaction can be mined again on the new branch.
    const raw = await devnet.signedTransfer(devnet.payer, inv.address, '5');
    const txHash = await devnet.sendRaw(raw);
    await devnet.mine(1);
    await pass();
    expect((await transactionWhere(ctx.deps.db, { network: 'Ethereum', txHash })).confirmations).toBe(2);

    await devnet.revert(snapshot); // the block holding it leaves the canonical chain
    await devnet.mine(REQUIRED + 2); // a longer branch without it
    await pass();
    const dropped = await transactionWhere(ctx.deps.db, { network: 'Ethereum', txHash });
    expect(dropped).toMatchObject({ status: 'Pending', confirmations: 0, blockNumber: null }); // in no block of the chain
    expect((await invoiceNow(inv.id)).status).toBe('Pending');
    expect((await balance()).available).toBe(before.available);

    // Mined again: found again by the watcher (no second record), and confirmed from its new block.
    await devnet.sendRaw(raw);
    await pass();
    expect(await transactionCount(ctx.deps.db, { txHash })).toBe(1);
    expect((await invoiceNow(inv.id)).status).toBe('Pending');
    await devnet.mine(REQUIRED - 1);
    await pass();
    expect((await invoiceNow(inv.id)).status).toBe('Paid');
    expect((await balance()).available).toBeCloseTo(before.available + 4.95, 6);
  });

  it('one transaction paying two invoices (a batch sender) is two transfers, each recorded once', async () => {
    const [a, b] = [await invoice(3), await invoice(4)];
    const txHash = `0x${randomBytes(32).toString('hex')}`;
    const found = [a, b].map((inv, i) => ({
      network: 'Ethereum' as const, currency: 'USDT_ERC20' as const, txHash, fromAddress: devnet.payer.address, toAddress: inv.address, amount: money(3 + i), blockNumber: 1,
    }));
    expect(await recordFoundTransfers(ctx.deps, found)).toBe(2);
    expect(await recordFoundTransfers(ctx.deps, found)).toBe(0); // found again: nothing new
    expect(await transactionCount(ctx.deps.db, { txHash })).toBe(2);
  });

  it('a detected transfer that stays off the chain past EVM_DROPPED_AFTER_MS fails; before that it waits', async () => {
    const ref = {
      network: 'Ethereum' as const,
      currency: 'USDT_ERC20' as const,
      txHash: `0x${'ab'.repeat(32)}`,
      fromAddress: devnet.payer.address,
      toAddress: devnet.payer.address,
      amount: '1',
      requiredConfirmations: REQUIRED,
      creditedBefore: (block: number) => creditedBefore(ctx.deps, ref, block),
    };
    expect(await ctx.live!.transferState({ ...ref, seenAt: new Date() })).toEqual({ state: 'pending', confirmations: 0, blockNumber: null });
    const old = new Date(Date.now() - ctx.deps.config.EVM_DROPPED_AFTER_MS);
    expect(await ctx.live!.transferState({ ...ref, seenAt: old })).toMatchObject({ state: 'failed', reason: expect.stringMatching(/reorganisation/) });
  });

  it('a watcher killed mid-range, after recording but before moving its cursor, resumes with the same credits', async () => {
    const invoices = await Promise.all([1, 2, 3, 4, 5].map(() => invoice(7)));
    for (const inv of invoices) await devnet.transfer(devnet.payer, inv.address, '7'); // five blocks, more than one range
    const watcher = ctx.live!.watchers[0]!;
    // The first range's transfers are recorded, then the process dies before its cursor moves.
    await expect(
      watcher.step(async (found) => {
        await recordFoundTransfers(ctx.deps, found);
        throw new Error('killed');
      }),
    ).rejects.toThrow('killed');
    const cursorAtDeath = (await cursorOf(ctx.deps.db, 'Ethereum')).blockNumber;

    // A second replica (a restart) takes the lease once it runs out, and scans from the cursor.
    const restarted = await connectLiveChain(ctx.deps.config, ctx.deps.db, ctx.deps.clock, ctx.deps.logger, { runsPayouts: false });
    try {
      const leader = async () => (await cursorOf(ctx.deps.db, 'Ethereum')).leader;
      const dead = await leader();
      const deps = { ...ctx.deps, chains: { ...ctx.deps.chains, live: liveChainMap(restarted) } };
      await watchChains(deps); // the dead one's lease still runs: nothing happens
      expect(await leader()).toBe(dead);
      await eventually(async () => {
        await watchChains(deps);
        expect(await leader()).toBe(restarted!.watchers[0]!.cursor.holder);
      }, 15_000, 200);
      expect((await cursorOf(ctx.deps.db, 'Ethereum')).blockNumber).toBeGreaterThan(cursorAtDeath);
      await devnet.mine(REQUIRED);
      await trackTransfers(deps);
    } finally {
      await restarted?.close();
    }
    for (const inv of invoices) {
      expect(await transactionCount(ctx.deps.db, { invoiceId: inv.id })).toBe(1);
      expect(await invoiceNow(inv.id)).toMatchObject({ status: 'Paid', amountReceived: 7 });
    }
  });
});

/** Whether an eth_getLogs call's block range holds `block`. */
const covers = (c: RpcCall, block: bigint) => {
  if (c.method !== 'eth_getLogs') return false;
  const f = c.params[0] as { fromBlock: string; toBlock: string };
  return BigInt(f.fromBlock) <= block && block <= BigInt(f.toBlock);
};

/**
 * Another live connection to the same devnet through `urls` (fault proxies in front of it),
 * leading the Ethereum watcher in place of the file's own connection while a test runs.
 */
async function through(urls: string[], overrides: Partial<CryptoDeps['config']> = {}, logger = ctx.deps.logger) {
  await ctx.live!.close(); // gives the lease up
  const config = { ...ctx.deps.config, EVM_RPC_URL_ETHEREUM: urls.join(','), ...overrides };
  const chain = (await connectLiveChain(config, ctx.deps.db, ctx.deps.clock, logger, { runsPayouts: false }))!;
  const deps: CryptoDeps = { ...ctx.deps, config, logger, chains: { ...ctx.deps.chains, live: liveChainMap(chain) } };
  const pass = async () => {
    await watchChains(deps);
    await trackTransfers(deps);
  };
  return { chain, deps, pass };
}

describe('live deposits through faulty and dishonest providers (a JSON-RPC fault proxy in front of the devnet)', () => {
  let proxies: RpcProxy[] = [];
  let chain: { close(): Promise<void> } | null = null;
  const proxy = async () => {
    const p = await startRpcProxy(devnet.url);
    proxies.push(p);
    return p;
  };
  afterEach(async () => {
    await chain?.close();
    chain = null;
    await Promise.all(proxies.map((p) => p.stop()));
    proxies = [];
  });

  it('finding 4: one empty eth_getLogs answer for the deposit\'s block loses nothing: the newest blocks are scanned again', async () => {
    const p = await proxy();
    const t = await through([p.url]);
    chain = t.chain;
    await t.pass();
    const inv = await invoice(10);
    const txHash = await devnet.transfer(devnet.payer, inv.address, '10');
    const block = (await devnet.client.getTransactionReceipt({ hash: txHash })).blockNumber;
    p.fault({ match: (c) => covers(c, block), action: { result: [] }, times: 1 }); // a lagging or broken answer, once
    await t.pass();
    expect(p.callsOf('eth_getLogs').some((c) => covers(c, block))).toBe(true);
    await devnet.mine(REQUIRED + 5); // deeper than the confirmations and the re-scan window
    for (let i = 0; i < 3; i++) await t.pass();
    expect(await transactionCount(ctx.deps.db, { txHash })).toBe(1);
    expect(await invoiceNow(inv.id)).toMatchObject({ status: 'Paid', amountReceived: 10 });
  });

  it('finding 6: a provider that caps eth_getLogs ranges does not stall catching up: the range is halved', async () => {
    const p = await proxy();
    p.capLogRange(10);
    const t = await through([p.url], { EVM_MAX_BLOCK_RANGE: 50 });
    chain = t.chain;
    await t.pass().catch(() => undefined);
    const inv = await invoice(6);
    await devnet.mine(60); // the watcher falls behind
    const txHash = await devnet.transfer(devnet.payer, inv.address, '6');
    await devnet.mine(REQUIRED);
    for (let i = 0; i < 3; i++) {
      await watchChains(t.deps).catch(() => undefined);
      await trackTransfers(t.deps);
    }
    expect(p.callsOf('eth_getLogs').length).toBeGreaterThan(3);
    expect(await transactionCount(ctx.deps.db, { txHash })).toBe(1);
    expect(await invoiceNow(inv.id)).toMatchObject({ status: 'Paid', amountReceived: 6 });
  });

  it('finding 5: a Transfer log and receipt a dishonest node makes up are never credited (the address holds no such balance)', async () => {
    const p = await proxy();
    const t = await through([p.url]);
    chain = t.chain;
    await t.pass();
    const inv = await invoice(10);
    const before = await balance();
    await devnet.mine(1);
    const head = await devnet.client.getBlockNumber();
    const units = 10n * 10n ** BigInt(devnet.decimals);
    const { txHash } = await p.inventTransfer({ token: devnet.token, from: devnet.payer.address, to: inv.address, units, blockNumber: head });
    await t.pass();
    await devnet.mine(REQUIRED + 2);
    for (let i = 0; i < 3; i++) await t.pass();
    expect(await devnet.balanceOf(inv.address)).toBe(0n);
    expect((await invoiceNow(inv.id)).status).toBe('Pending');
    expect((await balance()).available).toBe(before.available);
    const [t1] = await transactionsWhere(ctx.deps.db, { txHash });
    if (t1) expect(t1.status).toBe('Pending'); // seen (one provider is all there is), never confirmed
  });

  it('finding 5: with two providers, a log only one returns is never recorded, and a failing provider delays without deciding', async () => {
    const [honest, liar] = [await proxy(), await proxy()];
    const t = await through([honest.url, liar.url]);
    chain = t.chain;
    await t.pass();
    const inv = await invoice(10);
    await devnet.mine(1);
    const head = await devnet.client.getBlockNumber();
    const { txHash } = await liar.inventTransfer({ token: devnet.token, from: devnet.payer.address, to: inv.address, units: 10n * 10n ** BigInt(devnet.decimals), blockNumber: head });
    await devnet.mine(REQUIRED + 2);
    for (let i = 0; i < 3; i++) await t.pass();
    expect(await transactionCount(ctx.deps.db, { txHash })).toBe(0);
    expect((await metricsRegistry.getSingleMetricAsString('crypto_chain_rpc_disagreements_total'))).toMatch(/network="Ethereum",what="logs"\} [1-9]/);

    // The liar is fixed; a real payment is then recorded only while both providers answer.
    liar.reset();
    honest.fault({ match: 'eth_getLogs', action: 'drop' });
    const real = await devnet.transfer(devnet.payer, inv.address, '10');
    await devnet.mine(REQUIRED);
    await t.pass().catch(() => undefined);
    expect(await transactionCount(ctx.deps.db, { txHash: real })).toBe(0);
    honest.reset();
    for (let i = 0; i < 3; i++) await t.pass();
    expect(await invoiceNow(inv.id)).toMatchObject({ status: 'Paid', amountReceived: 10 });
  });

  it('finding 11: an RPC URL (its API key) shows in no log line, error or metric when its provider fails', async () => {
    const lines: string[] = [];
    const logger = createLogger('crypto', 'info', new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) }) as never);
    const p = await proxy();
    const secretUrl = `${p.url}/v3/SECRET-PROVIDER-KEY-0123`;
    const t = await through([secretUrl], {}, logger);
    chain = t.chain;
    p.fault({ match: 'eth_getLogs', action: { error: { code: -32000, message: 'internal error' } } });
    p.fault({ match: 'eth_getTransactionReceipt', action: 'drop' });
    const inv = await invoice(1);
    await devnet.transfer(devnet.payer, inv.address, '1');
    await devnet.mine(1);
    const errors: string[] = [];
    for (const run of [() => watchChains(t.deps), () => trackTransfers(t.deps)]) {
      await run().catch((err: Error) => {
        errors.push(`${err.message}\n${err.stack}\n${JSON.stringify(err)}`);
        logger.error({ err }, 'periodic task failed; backing off'); // as every() logs it
      });
    }
    await new Promise((r) => setTimeout(r, 300)); // the logger's buffered lines
    const text = [...lines, ...errors, await metricsRegistry.metrics()].join('\n');
    expect(text).toMatch(/failed|error/i);
    expect(text).not.toMatch(/SECRET-PROVIDER-KEY/);
    expect(text).not.toContain('/v3/');
  });
});
