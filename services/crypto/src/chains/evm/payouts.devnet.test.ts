import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { formatGwei, getAddress, parseGwei, parseUnits, type Address } from 'viem';
import { metricsRegistry } from '@pay/runtime';
import { BUILT_START_MS, eventually, spawnBuiltService, startRpcProxy } from '@pay/testing';
import { buildCryptoApp } from '../../app';
import { watchChains } from '../../background';
import { registerMerchant, signedRequest, startCryptoApp, type CryptoTestApp, type TestMerchant } from '../../../test/test-support';
import { trackTransfers } from '../../modules/transactions/tracker';
import { advanceWithdrawal } from '../../modules/withdrawals/processing';
import { watchWithdrawals } from '../../modules/withdrawals/metrics';
import type { CryptoDeps } from '../../deps';
import { startDevnet, type Devnet } from './devnet';
import { connectLiveChain } from './live-chain';
import { liveChainMap } from '../registry';
import { forgetPayouts, forgetWatcher, payoutCount } from '../../../test/chains/store';
import { ledgerKinds } from '../../../test/ledger/store';
import { withdrawalRecord } from '../../../test/withdrawals/store';
import { payoutTransactionsOf } from './payout-store';

// Live USDT_BEP20 payouts on a real local chain, BSC's settings pointed at it. The BSC rows
// of the watcher's and signer's tables are this file's alone (deposits.devnet.test.ts uses Ethereum).
const REQUIRED = 2;
let devnet: Devnet;
let ctx: CryptoTestApp;
let m: TestMerchant;

beforeAll(async () => {
  devnet = await startDevnet();
  ctx = await startCryptoApp({
    env: {
      EVM_RPC_URL_BSC: devnet.url,
      USDT_CONTRACT_BSC: devnet.token,
      DEPOSIT_XPUB: devnet.xpub,
      CONFIRMATIONS_BSC: String(REQUIRED),
      PAYOUT_STUCK_AFTER_MS: '1',
      // Below the default (10): the amounts here are small. Not 1, so the live minimum shows apart from test mode's.
      WITHDRAWAL_MINIMUMS: 'USDT_BEP20=0.9',
      PAYOUT_MAX_FEE_GWEI_BSC: '50', // far above the devnet's fees; the ceiling's own test sets one just above them
    },
    live: { runsPayouts: true, payoutKey: devnet.hotWalletKey },
  });
  const db = ctx.deps.db;
  await forgetWatcher(db, 'BSC');
  await forgetPayouts(db, 'BSC');
  await ctx.live!.signer!.register(); // this devnet's nonce
  m = await registerMerchant(ctx.app);
  await watchChains(ctx.deps);
  // Funds the way a merchant gets them: a live invoice paid on chain.
  const inv = (await request(ctx.app).post('/api/v1/invoices').set('X-Api-Key', m.apiKey).send({ amount: 200, currency: 'USDT_BEP20' })).body.data;
  await devnet.transfer(devnet.payer, inv.address, '200');
  await devnet.mine(REQUIRED);
  await watchChains(ctx.deps);
  await trackTransfers(ctx.deps);
}, 60_000);

afterAll(async () => {
  await ctx?.close();
  await devnet?.stop();
});

const available = async () => {
  const b = (await request(ctx.app).get('/api/v1/withdrawals/balance').set('X-Api-Key', m.apiKey)).body.data;
  return b.balances.find((x: { currency: string }) => x.currency === 'USDT_BEP20').available as number;
};
const recipient = () => getAddress(`0x${randomBytes(20).toString('hex')}`);
const withdraw = async (toAddress: Address, amount: number) => {
  const res = await signedRequest(ctx.app, m, 'post', '/api/v1/withdrawals', { toAddress, amount, currency: 'USDT_BEP20' });
  expect(res.status).toBe(201);
  return res.body.data.id as string;
};
/** Steps the withdrawal as the worker does, a block mined between steps, until it is finished. */
const settle = async (id: string, deps: CryptoDeps = ctx.deps) => {
  for (let i = 0; i < 20 && (await advanceWithdrawal(deps, id)) === 'again'; i++) await devnet.mine(1);
  return withdrawalRecord(ctx.deps.db, id);
};

describe('live USDT on an EVM devnet: payouts', () => {
  it('the merchant was credited from a real deposit', async () => {
    expect(await available()).toBe(198);
  });

  it('a withdrawal arrives on chain, sent by the workers-only process (main.ts) with the key read from its 0600 file: the recipient gains the net amount, in the token’s own 18 decimals', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'payout-key-'));
    const keyFile = path.join(dir, 'payout-key');
    writeFileSync(keyFile, `${devnet.hotWalletKey}\n`, { mode: 0o600 });
    // This file's settings, on its queue prefix, database and Redis: the process takes this test's withdrawal jobs.
    const workersEnv = {
      SERVE_API: 'false',
      RUN_WORKERS: 'true',
      PAYOUT_PRIVATE_KEY_FILE: keyFile,
      QUEUE_PREFIX: ctx.deps.config.QUEUE_PREFIX,
      EVM_RPC_URL_BSC: devnet.url,
      USDT_CONTRACT_BSC: devnet.token,
      DEPOSIT_XPUB: devnet.xpub,
      CONFIRMATIONS_BSC: String(REQUIRED),
      WITHDRAWAL_MINIMUMS: 'USDT_BEP20=0.9',
      PAYOUT_MAX_FEE_GWEI_BSC: '50',
      WITHDRAWAL_POLL_MS: '200',
    };
    try {
      // The same file open to every user: the process refuses to start, naming its mode.
      chmodSync(keyFile, 0o644);
      // The bundle crypto-workers runs in production (dist/main.js under plain node), not tsx:
      // what ships is what refuses, and it starts in seconds where tsx took minutes under load.
      const refused = await spawnBuiltService('crypto', workersEnv).then(
        async (svc) => (await svc.stop(), 'started'),
        (err: Error) => err.message,
      );
      expect(refused).toMatch(/exited with 1 before listening:[\s\S]*PAYOUT_PRIVATE_KEY_FILE \S+ is open to every user of this machine \(mode 0644\): chmod 600 it/);
      expect(refused).not.toContain(devnet.hotWalletKey.slice(2));
      chmodSync(keyFile, 0o600);
      const workers = await spawnBuiltService('crypto', workersEnv);
      try {
        expect(workers.logs()).toMatch(new RegExp(`"hotWallet":"${devnet.hotWallet.address}".*"msg":"live chain connected"`, 'i'));
        const to = recipient();
        const id = await withdraw(to, 10);
        // Blocks come as the test mines them: one every half second until the worker has the withdrawal at depth.
        const w = await eventually(
          async () => {
            await devnet.mine(1);
            const row = await withdrawalRecord(ctx.deps.db, id);
            expect(row.status).toBe('Completed');
            return row;
          },
          90_000,
          500,
        );
        expect(w.confirmations).toBeGreaterThanOrEqual(REQUIRED);
        expect(await devnet.balanceOf(to)).toBe(parseUnits('9.9', 18));
        const receipt = await devnet.client.getTransactionReceipt({ hash: w.txHash as `0x${string}` });
        expect(receipt.from.toLowerCase()).toBe(devnet.hotWallet.address.toLowerCase());
        expect(await available()).toBe(188);
        expect(workers.problems()).toEqual([]);
      } finally {
        expect(await workers.stop()).toBe(0);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, BUILT_START_MS + 2 * 60_000 + 90_000);

  it('a payout that reverts on chain fails with its reason, and the amount is back in the balance', async () => {
    await devnet.pause(); // every token transfer reverts
    try {
      const before = await available();
      const id = await withdraw(recipient(), 5);
      expect(await available()).toBe(before - 5);
      const w = await settle(id);
      expect(w.status).toBe('Failed');
      expect(w.failureReason).toMatch(/reverted on chain/);
      expect((await devnet.client.getTransactionReceipt({ hash: w.txHash as `0x${string}` })).status).toBe('reverted');
      expect(await available()).toBe(before);
    } finally {
      await devnet.unpause();
    }
  });

  it('two workers racing one withdrawal sign and send one transaction', async () => {
    const second = await connectLiveChain(ctx.deps.config, ctx.deps.db, ctx.deps.clock, ctx.deps.logger, { runsPayouts: true, payoutKey: devnet.hotWalletKey });
    const other: CryptoDeps = { ...ctx.deps, chains: { ...ctx.deps.chains, live: liveChainMap(second) } };
    try {
      const nonceBefore = await devnet.client.getTransactionCount({ address: devnet.hotWallet.address });
      const to = recipient();
      const id = await withdraw(to, 3);
      await Promise.all([advanceWithdrawal(ctx.deps, id), advanceWithdrawal(other, id)]);
      await Promise.all([settle(id), settle(id, other)]);
      expect(await payoutCount(ctx.deps.db, id)).toBe(1);
      expect(await devnet.client.getTransactionCount({ address: devnet.hotWallet.address })).toBe(nonceBefore + 1);
      expect(await devnet.balanceOf(to)).toBe(parseUnits('2.97', 18));
      expect((await withdrawalRecord(ctx.deps.db, id)).status).toBe('Completed');
    } finally {
      await second?.close();
    }
  });

  it('finding 1: a worker that finds the hot wallet short after another worker’s transfer never fails the withdrawal it sent', async () => {
    // The hot wallet holds exactly this payout: once it is sent, the wallet is short.
    await devnet.transferUnits(devnet.hotWallet, devnet.deployer.address, await devnet.balanceOf(devnet.hotWallet.address));
    await devnet.mint(devnet.hotWallet.address, '4.95');
    const proxyA = await startRpcProxy(devnet.url);
    const proxyB = await startRpcProxy(devnet.url);
    const chainVia = (url: string) => connectLiveChain({ ...ctx.deps.config, EVM_RPC_URL_BSC: url }, ctx.deps.db, ctx.deps.clock, ctx.deps.logger, { runsPayouts: true, payoutKey: devnet.hotWalletKey });
    const [a, b] = [await chainVia(proxyA.url), await chainVia(proxyB.url)];
    const depsA: CryptoDeps = { ...ctx.deps, chains: { ...ctx.deps.chains, live: liveChainMap(a) } };
    const depsB: CryptoDeps = { ...ctx.deps, chains: { ...ctx.deps.chains, live: liveChainMap(b) } };
    try {
      const to = recipient();
      const id = await withdraw(to, 5);
      const before = await available();
      // B's first call to the chain is answered only once A has sent (or A's step has ended);
      // A's broadcast reaches the node at once (mined), and its answer comes only after B's step.
      let sentByA!: () => void;
      const aSent = new Promise<void>((r) => (sentByA = r));
      let bStarted!: () => void;
      const bCalling = new Promise<void>((r) => (bStarted = r));
      let releaseA!: () => void;
      const aReleased = new Promise<void>((r) => (releaseA = r));
      proxyB.fault({ match: () => true, times: 1, action: { rewrite: async (result) => { bStarted(); await aSent; return result; } } });
      proxyA.fault({ match: 'eth_sendRawTransaction', action: { rewrite: async (result) => { sentByA(); await aReleased; return result; } } });
      const stepB = advanceWithdrawal(depsB, id);
      await bCalling;
      const stepA = advanceWithdrawal(depsA, id).finally(() => sentByA());
      await stepB.finally(() => releaseA());
      await stepA;
      const w = await settle(id);
      expect(w.status).toBe('Completed');
      expect(await devnet.balanceOf(to)).toBe(parseUnits('4.95', 18));
      expect(await payoutCount(ctx.deps.db, id)).toBe(1);
      expect((await ledgerKinds(ctx.deps.db, { withdrawalId: id, kind: 'withdrawal_release' })).length).toBe(0);
      expect(await available()).toBe(before);
    } finally {
      await Promise.all([a?.close(), b?.close(), proxyA.stop(), proxyB.stop()]);
      await devnet.mint(devnet.hotWallet.address, '1000000');
    }
  });

  it('finding 2: a payout that reverts is not failed before the required depth; mined again after a reorg, it completes, never released', async () => {
    const to = recipient();
    const before = await available();
    await devnet.pause(); // every token transfer reverts
    const fork = await devnet.snapshot();
    const id = await withdraw(to, 3);
    expect(await advanceWithdrawal(ctx.deps, id)).toBe('again'); // signed, sent, mined: reverted, 1 confirmation of 2
    expect(await advanceWithdrawal(ctx.deps, id)).toBe('again');
    const shallow = await withdrawalRecord(ctx.deps.db, id);
    expect(shallow.status).toBe('Processing');
    // A reorganisation: the block with the reverted transfer is gone, the token works again, and the same nonce is mined anew.
    await devnet.revert(fork);
    await devnet.unpause();
    const w = await settle(id);
    expect(w.status).toBe('Completed');
    expect(await devnet.balanceOf(to)).toBe(parseUnits('2.97', 18));
    expect((await ledgerKinds(ctx.deps.db, { withdrawalId: id, kind: 'withdrawal_release' })).length).toBe(0);
    expect(await available()).toBe(before - 3);
  });

  it('finding 3: a stuck payout is replaced up to the fee ceiling, then held (gauged, alerted), never failed; it completes once mined', async () => {
    await devnet.setAutomine(false);
    const to = recipient();
    let id: string;
    let capped: Awaited<ReturnType<typeof connectLiveChain>> = null;
    const unwatch = watchWithdrawals(ctx.deps.db);
    try {
      id = await withdraw(to, 4);
      expect(await advanceWithdrawal(ctx.deps, id)).toBe('again'); // signed and broadcast; not mined
      const [first] = await payoutTransactionsOf(ctx.deps.db, id);
      // A ceiling twice the first fee: room for three replacements of +25%, never a fourth.
      const ceiling = formatGwei(BigInt(first!.maxFeePerGas) * 2n);
      capped = await connectLiveChain({ ...ctx.deps.config, PAYOUT_MAX_FEE_GWEI_BSC: ceiling }, ctx.deps.db, ctx.deps.clock, ctx.deps.logger, { runsPayouts: true, payoutKey: devnet.hotWalletKey });
      const cappedDeps: CryptoDeps = { ...ctx.deps, chains: { ...ctx.deps.chains, live: liveChainMap(capped) } };
      for (let i = 0; i < 12; i++) expect(await advanceWithdrawal(cappedDeps, id)).toBe('again');
      const sent = await payoutTransactionsOf(ctx.deps.db, id);
      expect(sent.length).toBeGreaterThan(1);
      expect(sent.length).toBeLessThanOrEqual(5);
      for (const t of sent) expect(BigInt(t.maxFeePerGas)).toBeLessThanOrEqual(parseGwei(ceiling));
      const held = await withdrawalRecord(ctx.deps.db, id);
      expect(held).toMatchObject({ status: 'Processing', heldReason: expect.stringMatching(/fee ceiling of [0-9.]+ gwei \(PAYOUT_MAX_FEE_GWEI_BSC\)/) });
      expect(Number(/^crypto_payouts_held (\S+)$/m.exec(await metricsRegistry.metrics())?.[1])).toBeGreaterThanOrEqual(1);
    } finally {
      unwatch();
      await devnet.setAutomine(true);
      await capped?.close();
    }
    await devnet.mine(1);
    const w = await settle(id);
    expect(w).toMatchObject({ status: 'Completed', heldReason: null });
    expect(await devnet.balanceOf(to)).toBe(parseUnits('3.96', 18));
  });

  it('a payout stuck unmined is replaced at the same nonce with a higher fee; the recipient is paid once', async () => {
    await devnet.setAutomine(false);
    const to = recipient();
    let id: string;
    try {
      id = await withdraw(to, 4);
      expect(await advanceWithdrawal(ctx.deps, id)).toBe('again'); // signed and broadcast; not mined
      expect(await advanceWithdrawal(ctx.deps, id)).toBe('again'); // past PAYOUT_STUCK_AFTER_MS: replaced
    } finally {
      await devnet.setAutomine(true);
    }
    const sent = await payoutTransactionsOf(ctx.deps.db, id);
    expect(sent).toHaveLength(2);
    expect(sent[1]!.nonce).toBe(sent[0]!.nonce);
    expect(BigInt(sent[1]!.maxFeePerGas)).toBeGreaterThan(BigInt(sent[0]!.maxFeePerGas));
    await devnet.mine(1);
    const w = await settle(id);
    expect(w).toMatchObject({ status: 'Completed', txHash: sent[1]!.txHash });
    expect(await devnet.balanceOf(to)).toBe(parseUnits('3.96', 18));
  });

  it('signed bytes that never reached the node are broadcast again, unchanged, by the next process', async () => {
    const to = recipient();
    await devnet.setAutomine(false);
    let id: string;
    try {
      id = await withdraw(to, 6);
      expect(await advanceWithdrawal(ctx.deps, id)).toBe('again'); // signed, recorded, broadcast
      const [signed] = await payoutTransactionsOf(ctx.deps.db, id);
      // As if the process died between recording the transaction and broadcasting it.
      await devnet.dropTransaction(signed!.txHash as `0x${string}`);
    } finally {
      await devnet.setAutomine(true);
    }
    // The next process, which would not yet call it stuck, sends the recorded bytes again.
    const config = { ...ctx.deps.config, PAYOUT_STUCK_AFTER_MS: 3_600_000 };
    const restarted = await connectLiveChain(config, ctx.deps.db, ctx.deps.clock, ctx.deps.logger, { runsPayouts: true, payoutKey: devnet.hotWalletKey });
    try {
      const w = await settle(id, { ...ctx.deps, config, chains: { ...ctx.deps.chains, live: liveChainMap(restarted) } });
      const sent = await payoutTransactionsOf(ctx.deps.db, id);
      expect(sent).toHaveLength(1);
      expect(w).toMatchObject({ status: 'Completed', txHash: sent[0]!.txHash });
      expect(await devnet.balanceOf(to)).toBe(parseUnits('5.94', 18));
    } finally {
      await restarted?.close();
    }
  });

  it('a hot wallet short of tokens fails the withdrawal with a reason that says so, the amount back in the balance', async () => {
    const held = await devnet.balanceOf(devnet.hotWallet.address);
    // Emptied from outside (its nonce moves too, which the signer must follow).
    await devnet.transferUnits(devnet.hotWallet, devnet.deployer.address, held);
    try {
      const before = await available();
      const w = await settle(await withdraw(recipient(), 5));
      expect(w.status).toBe('Failed');
      expect(w.failureReason).toMatch(/hot wallet 0x[0-9a-fA-F]{40} holds 0 USDT_BEP20, less than the 4\.95 to send/);
      expect(await available()).toBe(before);
    } finally {
      await devnet.mint(devnet.hotWallet.address, '1000000');
    }
    // The next payout signs after the nonce used from outside.
    const to = recipient();
    expect((await settle(await withdraw(to, 1))).status).toBe('Completed');
    expect(await devnet.balanceOf(to)).toBe(parseUnits('0.99', 18));
  });

  it('refuses a live withdrawal below the live minimum (WITHDRAWAL_MINIMUMS) and one to the hot wallet itself', async () => {
    const before = await available();
    const small = await signedRequest(ctx.app, m, 'post', '/api/v1/withdrawals', { toAddress: recipient(), amount: 0.8, currency: 'USDT_BEP20' });
    expect(small.status).toBe(400);
    expect(small.body.error).toMatchObject({ code: 'VALIDATION_ERROR', message: 'The minimum live withdrawal of USDT_BEP20 is 0.9' });
    const own = await signedRequest(ctx.app, m, 'post', '/api/v1/withdrawals', { toAddress: devnet.hotWallet.address.toLowerCase(), amount: 5, currency: 'USDT_BEP20' });
    expect(own.status).toBe(400);
    expect(own.body.error.code).toBe('INVALID_ADDRESS');
    expect(await available()).toBe(before);
  });

  it('without PAYOUT_PRIVATE_KEY_FILE, live withdrawals are refused up front with a clear error', async () => {
    const keyless = await connectLiveChain(ctx.deps.config, ctx.deps.db, ctx.deps.clock, ctx.deps.logger, { runsPayouts: true });
    try {
      const { app } = buildCryptoApp({ ...ctx.deps, chains: { ...ctx.deps.chains, live: liveChainMap(keyless) } });
      const res = await signedRequest(app, m, 'post', '/api/v1/withdrawals', { toAddress: recipient(), amount: 5, currency: 'USDT_BEP20' });
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'CURRENCY_NOT_ENABLED', message: expect.stringMatching(/PAYOUT_PRIVATE_KEY_FILE is not set on the workers-only process/) });
    } finally {
      await keyless?.close();
    }
  });
});
