import { TRANSACTION_OPTIONS } from '@pay/kit';
import type { Withdrawal } from '../generated/prisma/client';
import type { CryptoDeps } from '../deps';
import { lockBalance, post } from '../ledger/ledger';
import { money } from '../money';
import { emitEvent } from '../events/events';
import { requiredConfirmations } from '../transactions/transfers';
import { withdrawalJson } from './views';
import { endWithdrawal, markSent, recordProgress, withdrawalById } from './store';
import { chainFor, type PayoutState } from '../chain/chain';

export type Step = 'done' | 'again';

/**
 * Moves one withdrawal one step: Pending → Processing (sent, txHash set) → Completed or
 * Failed. Every move is a conditional update on the current status, and the signer sends at
 * most one transfer per withdrawal id, so running a step twice (a retried or duplicated
 * job, two workers) never pays twice.
 */
export async function advanceWithdrawal(deps: CryptoDeps, withdrawalId: string): Promise<Step> {
  const w = await withdrawalById(deps.db, withdrawalId);
  if (!w) return 'done';
  if (w.status === 'Pending') return send(deps, w);
  if (w.status === 'Processing') return follow(deps, w);
  return 'done';
}

/** The chain of the withdrawal's mode; a live withdrawal cannot exist without one (see createWithdrawal). */
function signerOf(deps: CryptoDeps, w: Withdrawal) {
  const chain = chainFor(deps.chains, w.isTest);
  if (!chain) throw new Error(`withdrawal ${w.id}: no chain connection for ${w.isTest ? 'test' : 'live'} mode`);
  return chain;
}

async function send(deps: CryptoDeps, w: Withdrawal): Promise<Step> {
  const sent = await signerOf(deps, w).send({ payoutId: w.id, network: w.network, currency: w.currency, toAddress: w.toAddress, amount: money(w.netAmount).toFixed() });
  if (sent.state === 'refused') {
    await settle(deps, w, 'Pending', { state: 'failed', reason: sent.reason, blockNumber: null });
    return 'done';
  }
  await markSent(deps.tables, w.id, sent.txHash, deps.clock.now());
  return 'again';
}

async function follow(deps: CryptoDeps, w: Withdrawal): Promise<Step> {
  const state = await signerOf(deps, w).payoutState({
    payoutId: w.id,
    network: w.network,
    txHash: w.txHash!,
    toAddress: w.toAddress,
    sentAt: w.processedAt!,
    requiredConfirmations: requiredConfirmations(deps, w.network),
  });
  if (state.state === 'pending') {
    const txHash = state.txHash ?? w.txHash;
    if (state.confirmations !== w.confirmations || txHash !== w.txHash) {
      await recordProgress(deps.tables, w.id, state.confirmations, txHash);
    }
    return 'again';
  }
  await settle(deps, w, 'Processing', state);
  return 'done';
}

/**
 * The withdrawal's end: Completed, or Failed with its amount back in the balance (refused
 * before sending, or reverted on chain). Conditional on the status it was read in, so a
 * second worker arriving late changes nothing.
 */
async function settle(deps: CryptoDeps, w: Withdrawal, from: 'Pending' | 'Processing', state: Exclude<PayoutState, { state: 'pending' }>): Promise<void> {
  const owner = { merchantId: w.merchantId, isTest: w.isTest };
  await deps.db.$transaction(async (tx) => {
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
    if (!final) return; // another worker got here first
    if (state.state === 'failed') {
      await post(tx, owner, w.currency, [{ bucket: 'available', kind: 'withdrawal_release', amount: money(w.amount), withdrawalId: w.id }]);
    }
    await emitEvent(tx, deps.clock, owner, state.state === 'confirmed' ? 'withdrawal.completed' : 'withdrawal.failed', {
      withdrawal: withdrawalJson(final),
    });
  }, TRANSACTION_OPTIONS);
  deps.kickOutbox();
}
