import request from 'supertest';
import { randomBytes } from 'node:crypto';
import { cryptoAppForSuite, fund, signedRequest, testMerchant } from '../../../test/test-support';
import { toChecksumAddress } from '../addresses';
import { registerPayoutWallet } from '../evm/payout-store';
import { forgetPayoutWallet } from '../../../test/chains/store';

// is_payout_wallet.sql: create_withdrawal asks it whether a recipient is one of the hot wallets.
const ctx = cryptoAppForSuite();
const available = async (apiKey: string) =>
  (await request(ctx.app).get('/api/v1/withdrawals/balance').set('X-Api-Key', apiKey)).body.data.balances.find(
    (b: { currency: string }) => b.currency === 'USDT_ERC20',
  ).available;
const wallet = toChecksumAddress(`0x${randomBytes(20).toString('hex')}`);

afterAll(() => forgetPayoutWallet(ctx.deps.db, wallet));

it('a withdrawal to a hot wallet, in any spelling, is refused as one of the platform’s own addresses, and nothing is held', async () => {
  await registerPayoutWallet(ctx.deps.db, 'Ethereum', wallet, 0);
  const m = await testMerchant(ctx.app);
  await fund(ctx, m, 'USDT_ERC20', 100);
  for (const toAddress of [wallet, wallet.toLowerCase()]) {
    const res = await signedRequest(ctx.app, m, 'post', '/api/v1/withdrawals', { toAddress, amount: 10, currency: 'USDT_ERC20' });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'INVALID_ADDRESS', message: expect.stringMatching(/one of this platform's own addresses/) });
  }
  expect(await available(m.apiKey)).toBe(99);
  // Another address of the same merchant goes through: the refusal is the wallet's.
  const other = toChecksumAddress(`0x${randomBytes(20).toString('hex')}`);
  const made = await signedRequest(ctx.app, m, 'post', '/api/v1/withdrawals', { toAddress: other, amount: 10, currency: 'USDT_ERC20' });
  expect(made.status).toBe(201);
  expect(await available(m.apiKey)).toBe(89);
});
