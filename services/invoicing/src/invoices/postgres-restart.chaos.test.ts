import { apiClient, eventually, recordChaos, startChaosStack, untilAnswered, type HttpAnswer } from '@pay/testing';
import { invoicesByKey, newMerchantIn } from '../test-support';

const CLIENTS = 8;
/** A request not answered within this is a hang. */
const BOUND_MS = 15_000;

/**
 * Postgres restarts (down for 1.5 s at least) under a real invoicing process while 8 clients
 * send signed creates, each with an Idempotency-Key of its own. Every answer is a 201 or a 503
 * that says to retry; the process recovers by itself; every 503'd create retried with its key
 * (signed again) makes exactly one invoice, and every 201 is in the database.
 */
it('answers creates 201 or 503 while Postgres restarts, recovers by itself, and makes one invoice per key', async () => {
  const started = Date.now();
  const stack = await startChaosStack('postgres-restart');
  try {
    const m = await newMerchantIn(stack.postgres.url);
    const svc = await stack.spawn('invoicing');
    const client = apiClient(() => svc.url, m, 'v2', { timeoutMs: BOUND_MS });
    const create = (key: string) => client.signed('POST', '/api/v2/invoices', { amount: 100, description: key }, { 'Idempotency-Key': key });

    const sent: { key: string; answer: HttpAnswer; at: number }[] = [];
    let running = true;
    let next = 0;
    const clients = Array.from({ length: CLIENTS }, async () => {
      while (running) {
        const key = `pg-restart-${next++}`;
        sent.push({ key, answer: await create(key), at: Date.now() });
      }
    });
    const createdSince = (t: number) => sent.filter((s) => s.answer.status === 201 && s.at > t).length;
    await eventually(() => expect(createdSince(0)).toBeGreaterThanOrEqual(40), 60_000);
    await stack.postgres.restart(1500);
    const back = Date.now();
    // The same process, never restarted, creates again: its pools reconnect by themselves.
    await eventually(() => expect(createdSince(back)).toBeGreaterThanOrEqual(40), 60_000);
    running = false;
    await Promise.all(clients);

    // A careful client retries each 503 with the same key, signed again, until answered.
    const retried = await Promise.all(sent.filter((s) => s.answer.status !== 201).map(async (s) => ({ key: s.key, ...(await untilAnswered(() => create(s.key))) })));

    const attempts = [...sent.map((s) => s.answer), ...retried.flatMap((r) => r.attempts)];
    const unexpected = attempts.filter((a) => ![201, 503].includes(a.status) && !(a.status === 409 && a.body?.error?.code === 'IDEMPOTENCY_IN_PROGRESS'));
    const unavailable = attempts.filter((a) => a.status === 503);
    const { lost, duplicated, idOf } = await invoicesByKey(stack, m.merchantId, sent.map((s) => s.key));
    const finals = [...sent.filter((s) => s.answer.status === 201), ...retried];
    await recordChaos('postgres-restart', {
      requests: attempts.length,
      keys: sent.length,
      created: sent.length - lost.length,
      first201: sent.filter((s) => s.answer.status === 201).length,
      first503: sent.filter((s) => s.answer.status === 503).length,
      retriedKeys: retried.length,
      inProgress409: attempts.filter((a) => a.status === 409).length,
      lost: lost.length,
      duplicated,
      fiveXX: attempts.filter((a) => a.status >= 500 && a.status !== 503).length,
      hangs: attempts.filter((a) => a.error === 'timeout').length,
      maxMs: Math.max(...attempts.map((a) => a.ms)),
      durationMs: Date.now() - started,
    });

    // Never a 500, a hang or a cut connection: a 201, or a 503 that says to come back.
    expect(unexpected.map((a) => ({ status: a.status, error: a.error, body: a.body }))).toEqual([]);
    expect(unavailable.length).toBeGreaterThan(0); // the outage was seen
    for (const a of unavailable) {
      expect(a.headers.get('retry-after')).toBe('1');
      expect(a.body).toEqual({ success: false, error: { code: 'SERVICE_UNAVAILABLE', message: expect.any(String) } });
    }
    for (const r of retried) expect(r.answer.status).toBe(201);
    expect(lost).toEqual([]);
    expect(duplicated).toBe(0);
    // Every 201 names the invoice that exists for its key.
    for (const f of finals) expect(f.answer.body.invoice.id).toBe(idOf(f.key));
  } finally {
    await stack.close();
  }
}, 240_000);
