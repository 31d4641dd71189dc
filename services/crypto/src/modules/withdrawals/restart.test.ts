import { Queue } from 'bullmq';
import { Queues } from '@pay/queue';
import { eventually } from '@pay/testing';
import { fund, signedRequest, startCryptoApp, testMerchant } from '../../../test/test-support';
import { advanceWithdrawal } from './processing';
import type { Chain, PayoutRequest, PayoutTx } from '../../chains/port';
import { eventsOf } from '@pay/webhooks';
import { outboxRow } from '@pay/queue/test';
import { withdrawalStatus } from '../../../test/withdrawals/store';
import { ledgerKinds } from '../../../test/ledger/store';

const TRON = 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7';

describe('withdrawal jobs across restarts', () => {
  it('a withdrawal created while no worker runs is processed once a worker starts (outbox)', async () => {
    const prefix = `test-restart-${Date.now()}`;
    const api = await startCryptoApp({ env: { QUEUE_PREFIX: prefix } });
    const m = await testMerchant(api.app);
    await fund(api, m, 'USDT_TRC20', 50);
    const res = await signedRequest(api.app, m, 'post', '/api/v1/withdrawals', { toAddress: TRON, amount: 10, currency: 'USDT_TRC20' });
    expect(res.status).toBe(201);
    const id = res.body.data.id as string;
    // Its job is in the outbox, not yet published.
    expect(await outboxRow(api.deps.db, id)).toMatchObject({ published_at: null });
    await api.close();

    // "Later", a process with workers comes up on the same queues.
    const worker = await startCryptoApp({ background: true, env: { QUEUE_PREFIX: prefix } });
    try {
      await eventually(async () => {
        expect(await withdrawalStatus(worker.deps.db, id)).toBe('Completed');
      });
    } finally {
      await worker.close();
    }
  });

  it('a withdrawal whose job Redis lost is put back by the reconciler and completes', async () => {
    const prefix = `test-lost-${Date.now()}`;
    const ctx = await startCryptoApp({ background: true, env: { QUEUE_PREFIX: prefix } });
    try {
      await ctx.background!.worker.pause(); // nothing runs while we lose the job
      const m = await testMerchant(ctx.app);
      await fund(ctx, m, 'USDT_TRC20', 50);
      const res = await signedRequest(ctx.app, m, 'post', '/api/v1/withdrawals', { toAddress: TRON, amount: 10, currency: 'USDT_TRC20' });
      const id = res.body.data.id as string;
      const queue = new Queue(Queues.withdrawals.name, { connection: ctx.deps.queueRedis, prefix });
      await eventually(async () => expect(await queue.getJob(id)).toBeDefined());
      await queue.obliterate({ force: true }); // as after a Redis restart with nothing on disk
      expect(await queue.getJob(id)).toBeUndefined();
      ctx.background!.worker.resume();
      await ctx.background!.reconciler.runNow();
      await eventually(async () => {
        expect(await withdrawalStatus(ctx.deps.db, id)).toBe('Completed');
      });
      await queue.close();
    } finally {
      await ctx.close();
    }
  });

  it('steps run twice at once never pay twice, post twice or announce twice', async () => {
    const ctx = await startCryptoApp();
    try {
      const m = await testMerchant(ctx.app);
      await fund(ctx, m, 'USDT_TRC20', 50);
      const res = await signedRequest(ctx.app, m, 'post', '/api/v1/withdrawals', { toAddress: TRON, amount: 10, currency: 'USDT_TRC20' });
      const id = res.body.data.id as string;
      const sends: string[] = [];
      const sandbox = ctx.deps.chains.test;
      ctx.deps.chains = {
        ...ctx.deps.chains,
        // The sandbox, with its sends counted.
        test: Object.assign(Object.create(sandbox) as Chain, {
          send: async (req: PayoutRequest, tx: PayoutTx) => {
            sends.push(req.payoutId);
            return sandbox.send(req, tx);
          },
        }),
      };
      // Two workers racing on the same job, step after step, until both see it finished.
      for (let i = 0; i < 100; i++) {
        const steps = await Promise.all([advanceWithdrawal(ctx.deps, id), advanceWithdrawal(ctx.deps, id)]);
        if (steps.every((s) => s === 'done')) break;
        await new Promise((r) => setTimeout(r, 10));
      }
      expect(await withdrawalStatus(ctx.deps.db, id)).toBe('Completed');
      // A signer is asked per attempt; it sends one transfer per payout id (one txHash).
      expect(new Set(sends)).toEqual(new Set([id]));
      expect(await ledgerKinds(ctx.deps.db, { withdrawalId: id })).toEqual(['withdrawal_hold']);
      const events = await eventsOf(ctx.deps.db, { merchantId: m.merchantId, isTest: true });
      expect(events.filter((e: any) => e.body.withdrawal?.id === id)).toHaveLength(1);
    } finally {
      await ctx.close();
    }
  });
});
