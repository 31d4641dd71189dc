import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { signedHeaders } from '@pay/auth';
import { generateAddress } from '../../chains/addresses';
import { fund, startCryptoApp, type CryptoTestApp, testMerchant } from '../../../test/test-support';
import { withdrawalCount } from '../../../test/withdrawals/store';
import { runningBalance } from '../../../test/ledger/store';

let ctx: CryptoTestApp;
let server: Server;
let base: string;
beforeAll(async () => {
  // A real listening server and a pool of 10 connections: the requests truly overlap.
  ctx = await startCryptoApp({ env: { WITHDRAWAL_DAILY_LIMIT: '100000' } });
  server = createServer(ctx.app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  await ctx.close();
});

describe('concurrent withdrawals', () => {
  it('100 at once against a balance that covers 39 of them: exactly 39 pass, never an overdraft', async () => {
    const m = await testMerchant(ctx.app);
    await fund(ctx, m, 'USDT_TRC20', 1000); // 990 available after the 1% fee
    const results = await Promise.all(
      Array.from({ length: 100 }, async () => {
        // Each request has its own recipient, so its own signature (no replay refusals).
        const body = JSON.stringify({ toAddress: generateAddress('Tron'), amount: 25, currency: 'USDT_TRC20' });
        const headers = signedHeaders('crypto', m.hmacSecret, { method: 'POST', path: '/api/v1/withdrawals', body });
        const res = await fetch(`${base}/api/v1/withdrawals`, {
          method: 'POST',
          headers: { ...headers, 'X-Api-Key': m.apiKey, 'Content-Type': 'application/json' },
          body,
        });
        return { status: res.status, body: (await res.json()) as { error?: { code: string } } };
      }),
    );
    const ok = results.filter((r) => r.status === 201);
    const refused = results.filter((r) => r.status === 422);
    expect(ok).toHaveLength(39); // 39 × 25 = 975 ≤ 990 < 40 × 25
    expect(refused).toHaveLength(61);
    for (const r of refused) expect(r.body.error?.code).toBe('INSUFFICIENT_BALANCE');

    const sum = await runningBalance(ctx.deps.db, m.merchantId, 'USDT_TRC20', 'available');
    expect(sum.total).toBe('15.000000');
    // The running balance, in the order the entries were written, never went below zero.
    expect(Number(sum.lowest)).toBeGreaterThanOrEqual(0);
    expect(await withdrawalCount(ctx.deps.db, m.merchantId)).toBe(39);
    // The balance the API reports (the chain's head) agrees with the sum of every entry.
    const balance = await fetch(`${base}/api/v1/withdrawals/balance`, { headers: { 'X-Api-Key': m.apiKey } }).then((r) => r.json() as Promise<{ data: { balances: unknown[] } }>);
    expect(balance.data.balances[0]).toMatchObject({ currency: 'USDT_TRC20', available: 15, pending: 0, total: 15 });
  });
});
