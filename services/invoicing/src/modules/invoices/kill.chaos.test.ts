import { IDEMPOTENCY_LOCK_MS } from '@pay/http';
import { eventually, recordChaos, serverFailures, tally, untilAnswered, type HttpAnswer } from '@pay/testing';
import { invoicesByKey } from '../../../test/invoices/store';
import { invoicingOnChaosStack } from '../../../test/test-support';

const KEYS = 240;
const CLIENTS = 12;

/** From a key's first 409 IDEMPOTENCY_IN_PROGRESS (a dead request's claim) to its answer. */
function claimWaitMs(r: { answer: HttpAnswer; attempts: HttpAnswer[] }): number {
  const first = r.attempts.find((a) => a.status === 409);
  return first ? r.answer.sentAt + r.answer.ms - first.sentAt : 0;
}

/**
 * An invoicing process is killed with SIGKILL while 12 clients have signed creates in flight,
 * each with an Idempotency-Key of its own; a new process is started. Each client retries every
 * unanswered create with its key (signed again) until answered: exactly one invoice per key, and
 * a key whose first attempt committed gets that invoice back, never a second one.
 */
it('makes exactly one invoice per Idempotency-Key when the process is killed -9 mid-request', async () => {
  const started = Date.now();
  const chaos = await invoicingOnChaosStack('invoicing-kill');
  try {
    const create = (key: string) => chaos.client.signed('POST', '/api/v2/invoices', { amount: 250, description: key }, { 'Idempotency-Key': key });

    const results: { key: string; answer: HttpAnswer; attempts: HttpAnswer[] }[] = [];
    let next = 0;
    const clients = Array.from({ length: CLIENTS }, async () => {
      while (next < KEYS) {
        const key = `kill-${next++}`;
        // Long enough for a new process to start on a loaded machine, then the claim to go stale.
        results.push({ key, ...(await untilAnswered(() => create(key), 120_000)) });
      }
    });
    await eventually(() => expect(results.length).toBeGreaterThanOrEqual(60), 60_000);
    const killedAt = new Date();
    await chaos.killAndReplace(); // requests in flight: some not yet written, some written but not answered
    await Promise.all(clients);

    const { lost, duplicated, idOf, createdAt } = await invoicesByKey(chaos.stack, chaos.merchant.merchantId, results.map((r) => r.key));
    const cut = results.filter((r) => r.attempts.some((a) => a.status === 0));
    // Cut keys whose invoice the killed process had written: their retry resumed the dead claim.
    const resumed = cut.filter((r) => createdAt(r.key)! < killedAt);
    const attempts = results.flatMap((r) => r.attempts);
    const replays = await Promise.all(cut.map((r) => create(r.key)));
    await recordChaos('invoicing-kill', {
      ...tally([...attempts, ...replays]),
      keys: KEYS,
      created: KEYS - lost.length,
      keysCutByKill: cut.length,
      writtenBeforeKillAnsweredAfter: resumed.length,
      lost: lost.length,
      duplicated,
      longestClaimWaitMs: Math.max(0, ...cut.map(claimWaitMs)),
      durationMs: Date.now() - started,
    });

    expect(cut.length).toBeGreaterThan(0); // the kill did cut requests
    for (const r of results) expect({ key: r.key, status: r.answer.status }).toEqual({ key: r.key, status: 201 });
    // No failure but the retryable 503 (a pool that waited 5 s for a connection on a loaded machine).
    expect(serverFailures(attempts)).toEqual([]);
    expect(lost).toEqual([]);
    expect(duplicated).toBe(0);
    // Every answer, the first or a retry's, names the one invoice of its key.
    for (const r of results) expect(r.answer.body.invoice.id).toBe(idOf(r.key));
    // A retry waits for a dead claim at most IDEMPOTENCY_LOCK_MS (and a poll), never for ever.
    expect(Math.max(0, ...cut.map(claimWaitMs))).toBeLessThan(IDEMPOTENCY_LOCK_MS + 5_000);
    // And once answered, the key replays that answer.
    for (const [i, r] of cut.entries()) {
      expect(replays[i]!.status).toBe(201);
      expect(replays[i]!.headers.get('idempotent-replayed')).toBe('true');
      expect(replays[i]!.body.invoice.id).toBe(r.answer.body.invoice.id);
    }
  } finally {
    await chaos.stack.close();
  }
}, 240_000);
