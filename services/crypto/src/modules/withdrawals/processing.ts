import type { CryptoDeps } from '../../deps';
import { lockBalance, post } from '../ledger/ledger';
import { money } from '../../shared/money';
import { emitEvent } from '../events/events';
import { requiredConfirmations } from '../transactions/transfers';
import { withdrawalJson } from './views';
import { endWithdrawal, lockWithdrawal, markSent, recordProgress, type WithdrawalRecord as Withdrawal } from './store';
import type { Broadcast, PayoutState, PayoutTx } from '../../chains/port';
import { chainOf } from '../../chains/registry';

export type Step = 'done' | 'again';

/**
 * A step's transaction waits for the chain's answers (fees, balances, receipts) while it holds
 * the withdrawal's lock: longer than the default, and rolled back whole if it runs out.
 */
const STEP_TRANSACTION = { maxWait: 15_000, timeout: 60_000 } as const;

interface Outcome {
  step: Step;
  /** Signed bytes to send once the transaction that recorded them has committed. */
  broadcast?: Broadcast;
  ended?: boolean;
}

/**
 * Moves one withdrawal one step: Pending → Processing (sent, txHash set) → Completed or
 * Failed. The step runs in one transaction holding the withdrawal's row lock, taken before any
 * decision (the hot wallet's funds check included): a second worker on the same withdrawal (a
 * stalled or duplicated job, a reconciler after a Redis flush) finds it locked and looks again
 * later, so no worker ever refuses, fails or re-signs a withdrawal another is sending. What is
 * signed is committed with the withdrawal's move, then broadcast.
 */
export async function advanceWithdrawal(deps: CryptoDeps, withdrawalId: string): Promise<Step> {
  const outcome = await deps.db.$transaction(async (tx): Promise<Outcome> => {
    const w = await lockWithdrawal(tx, withdrawalId);
    if (w === 'busy') return { step: 'again' };
    if (!w) return { step: 'done' };
    if (w.status === 'Pending') return send(deps, tx, w);
    if (w.status === 'Processing') return follow(deps, tx, w);
    return { step: 'done' };
  }, STEP_TRANSACTION);
  if (outcome.broadcast) await outcome.broadcast();
  if (outcome.ended) deps.kickOutbox();
  return outcome.step;
}

/** The chain of the withdrawal's mode; a live withdrawal cannot exist without one (see createWithdrawal). */
function signerOf(deps: CryptoDeps, w: Withdrawal) {
  const chain = chainOf(deps.chains, w.isTest, w.network);
  if (!chain) throw new Error(`withdrawal ${w.id}: no chain connection for ${w.isTest ? 'test' : 'live'} mode on ${w.network}`);
  return chain;
}

async function send(deps: CryptoDeps, tx: PayoutTx, w: Withdrawal): Promise<Outcome> {
  const sent = await signerOf(deps, w).send({ payoutId: w.id, network: w.network, currency: w.currency, toAddress: w.toAddress, amount: money(w.netAmount).toFixed() }, tx);
  if (sent.state === 'refused') {
    await settle(deps, tx, w, 'Pending', { state: 'failed', reason: sent.reason, blockNumber: null });
    return { step: 'done', ended: true };
  }
  await markSent(tx, w.id, sent.txHash, deps.clock.now());
  return { step: 'again', broadcast: sent.broadcast };
}

async function follow(deps: CryptoDeps, tx: PayoutTx, w: Withdrawal): Promise<Outcome> {
  const state = await signerOf(deps, w).payoutState(
    {
      payoutId: w.id,
      network: w.network,
      txHash: w.txHash!,
      toAddress: w.toAddress,
      sentAt: w.processedAt!,
      requiredConfirmations: requiredConfirmations(deps, w.network),
    },
    tx,
  );
  if (state.state === 'pending') {
    const txHash = state.txHash ?? w.txHash;
    const held = state.held ?? null;
    if (held && held !== w.heldReason) deps.logger.warn({ withdrawalId: w.id, network: w.network, held }, 'payout held: it waits, and is not failed');
    if (state.confirmations !== w.confirmations || txHash !== w.txHash || held !== w.heldReason) {
      await recordProgress(tx, w.id, state.confirmations, txHash, held);
    }
    return { step: 'again', broadcast: state.broadcast };
  }
  await settle(deps, tx, w, 'Processing', state);
  return { step: 'done', ended: true };
}

/**
 * The withdrawal's end: Completed, or Failed with its amount back in the balance (refused
 * before anything was signed, or final on chain: reverted at the required depth). In the
 * step's transaction, under the withdrawal's lock.
 */
async function settle(deps: CryptoDeps, tx: PayoutTx, w: Withdrawal, from: 'Pending' | 'Processing', state: Exclude<PayoutState, { state: 'pending' }>): Promise<void> {
  const owner = { merchantId: w.merchantId, isTest: w.isTest };
  await lockBalance(tx, owner, w.currency);
  const txHash = state.txHash ?? w.txHash;
  const final = await endWithdrawal(
    tx,
    w,
    from,
    state.state === 'confirmed'
      ? { status: 'Completed', txHash, confirmations: state.confirmations, at: deps.clock.now() }
      : { status: 'Failed', txHash, reason: state.reason },
  );
  if (!final) return;
  if (state.state === 'failed') {
    await post(tx, owner, w.currency, [{ bucket: 'available', kind: 'withdrawal_release', amount: money(w.amount), withdrawalId: w.id }]);
  }
  await emitEvent(tx, deps.clock, owner, state.state === 'confirmed' ? 'withdrawal.completed' : 'withdrawal.failed', {
    withdrawal: withdrawalJson(final),
  });
}
