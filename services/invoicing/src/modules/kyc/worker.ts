import type { Queue, Worker } from 'bullmq';
import { requeueJobs, startWorker } from '@pay/queue';
import type { Lifecycle } from '@pay/runtime';
import type { InvoicingDeps, KycDeps } from '../../deps';
import { decideKycSession } from './decision';
import type { KycProvider } from './provider';
import { kycCheckJobId, loadSubmission } from './submission';
import { kycSessionById, staleCheckingKycSessions } from './store';

/** A CHECKING session older than this without a decision has lost its job (Redis restarted): it is queued again. */
export const KYC_CHECK_STALE_MS = 30_000;

/**
 * Runs the automatic check of one session: the provider's verdict is computed outside any
 * transaction, then applied conditionally (only if the session is still CHECKING), so a job
 * that runs twice decides once.
 */
export async function runKycCheck(deps: Pick<InvoicingDeps, 'db' | 'clock' | 'logger'>, provider: KycProvider, id: string): Promise<void> {
  const s = await kycSessionById(deps.db, id);
  if (!s || s.status !== 'IN_PROGRESS' || s.checkState !== 'CHECKING') return;
  const verdict = await provider.verify(await loadSubmission(deps, s), deps.clock.now());
  const decided = await decideKycSession(deps, id, 'CHECKING', {
    outcome: verdict.outcome,
    reason: verdict.reason,
    by: `auto:${provider.name}`,
    scores: { faceMatchScore: verdict.faceMatchScore, imageQualityScore: verdict.imageQualityScore },
    checks: verdict.checks,
  });
  if (decided) deps.logger.info({ kycSessionId: id, outcome: verdict.outcome }, 'kyc check decided');
}

/** Consumes `kycChecks` jobs, two at once (each decodes pictures, then reads the zone by OCR and runs the face model: a second or two of CPU). */
export function startKycWorker(deps: KycDeps, provider: KycProvider, lifecycle?: Lifecycle): Worker {
  return startWorker({
    queue: 'kycChecks',
    connection: deps.queueRedis,
    prefix: deps.config.QUEUE_PREFIX,
    logger: deps.logger,
    lifecycle,
    concurrency: 2,
    process: ({ sessionId }) => runKycCheck(deps, provider, sessionId),
  });
}

/**
 * Redis keeps nothing on disk: a check whose job was lost would leave its session CHECKING
 * for ever. This re-adds a job (job id = session id and attempt, so one still queued is not doubled) for
 * every session CHECKING for longer than KYC_CHECK_STALE_MS.
 */
export async function reconcileKycChecks(deps: Pick<InvoicingDeps, 'db' | 'clock'>, queue: Queue): Promise<number> {
  const stale = await staleCheckingKycSessions(deps.db, new Date(deps.clock.now().getTime() - KYC_CHECK_STALE_MS));
  return requeueJobs(queue, 'kycChecks', stale.map((s) => ({ jobId: kycCheckJobId(s), data: { sessionId: s.id } })));
}
