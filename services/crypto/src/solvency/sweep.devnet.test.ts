import request from 'supertest';
import type { Address } from 'viem';
import { registerMerchant, startCryptoApp, type CryptoTestApp, type TestMerchant } from '../../test/test-support';
import { watchChains } from '../background';
import { trackTransfers } from '../transactions/tracker';
import { tokenOf } from '../chain/evm/config';
import { DEPOSIT_ACCOUNT_PATH, DEVNET_MNEMONIC, startDevnet, type Devnet } from '../chain/evm/devnet';
import { planSweep, readSweepSecrets, runSweep } from './sweep';

// Live USDT_ERC20 on a local devnet: deposits to an address after the operator swept it. The
// Ethereum rows of the watcher's tables belong to whichever devnet file runs (they clean them first).
const REQUIRED = 2;
let devnet: Devnet;
let ctx: CryptoTestApp;
let m: TestMerchant;

beforeAll(async () => {
  devnet = await startDevnet({ decimals: 6 });
  ctx = await startCryptoApp({
    env: { EVM_RPC_URL_ETHEREUM: devnet.url, USDT_CONTRACT_ETHEREUM: devnet.token, DEPOSIT_XPUB: devnet.xpub, CONFIRMATIONS_ETHEREUM: String(REQUIRED) },
    live: { runsPayouts: false },
  });
  const db = ctx.deps.db;
  await db.$transaction([db.chainCursor.deleteMany({ where: { network: 'Ethereum' } }), db.chainBlock.deleteMany({ where: { network: 'Ethereum' } })]);
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
/** The operator's sweep of every settled address to the hot wallet, in this process (the CLI's steps). */
const sweep = async () => {
  const secrets = readSweepSecrets(`${DEVNET_MNEMONIC}\n${devnet.hotWalletKey}\n`, devnet.xpub, DEPOSIT_ACCOUNT_PATH);
  const items = await planSweep(ctx.deps, [usdt()]);
  return runSweep(ctx.deps, items, new Map([['USDT_ERC20', usdt()]]), secrets, devnet.hotWallet.address, ctx.deps.config.PAYOUT_GAS_LIMIT);
};

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
    expect(await ctx.deps.db.sweepTransfer.findUniqueOrThrow({ where: { txHash: sweepTx } })).toMatchObject({
      network: 'Ethereum', currency: 'USDT_ERC20', fromAddress: inv.address, toAddress: devnet.hotWallet.address, status: 'Signed', nonce: 0n,
    });

    // The payer pays again (twice by mistake): 5 arrive at the address, which now holds 5, not the 15 it was credited.
    const before = await available();
    const again = await devnet.transfer(devnet.payer, inv.address, '5');
    await devnet.mine(REQUIRED + 1);
    for (let i = 0; i < 3; i++) await pass();
    expect(await ctx.deps.db.transaction.findFirstOrThrow({ where: { network: 'Ethereum', txHash: again } })).toMatchObject({ status: 'Confirmed' });
    expect(await invoiceNow(inv.id)).toMatchObject({ status: 'Paid', amountReceived: 15 });
    expect(await available()).toBeCloseTo(before + 4.95, 6);
    // The deposit's check settled the sweep it needed, at depth.
    const settled = await ctx.deps.db.sweepTransfer.findUniqueOrThrow({ where: { txHash: sweepTx } });
    expect(settled).toMatchObject({ status: 'Confirmed', blockNumber: (await devnet.client.getTransactionReceipt({ hash: sweepTx })).blockNumber });
    expect(settled.movedUnits!.toFixed()).toBe('10000000');
  }, 120_000);
});
