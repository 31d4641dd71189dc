import { eventually, recordChaos, tally, untilAnswered, type HttpAnswer } from '@pay/testing';
import { invoicesByKey } from '../../../test/invoices/store';
import { invoicingOnChaosStack } from '../../../test/test-support';

const CLIENTS = 8;

/**
 * Postgres restarts (down for 1.5 s at least) under a real invoicing process while 8 clients
 * send signed creates, each with an Idempotency-Key of its own. Every answer is a 201 or a 503
 * that says to retry, within the client's 15 s bound; the process recovers by itself; every
 * 503'd create retried with its key (signed again) makes exactly one invoice, and every 201 is
 * in the database.
 */
it('answers creates 201 or 503 while Postgres restarts, recovers by itself, and makes one invoice per key', async () => {
  const started = Date.now();
  const { stack, merchant, client } = await invoicingOnChaosStack('postgres-restart');
  try {
    const create = (key: string) => client.signed('POST', '/api/v2/invoices', { amount: 100, description: key }, { 'Idempotency-Key': key });

    const sent: { key: string; answer: HttpAnswer }[] = [];
    let running = true;
    let next = 0;
    const clients = Array.from({ length: CLIENTS }, async () => {
      while (running) {
        const key = `pg-restart-${next++}`;
        sent.push({ key, answer: await create(key) });
      }
    });
    const createdSince = (t: number) => sent.filter((s) => s.answer.status === 201 && s.answer.sentAt + s.answer.ms > t).length;
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
    const { lost, duplicated, idOf } = await invoicesByKey(stack, merchant.merchantId, sent.map((s) => s.key));
    await recordChaos('postgres-restart', {
      ...tally(attempts),
      keys: sent.length,
      created: sent.length - lost.length,
      first201: sent.filter((s) => s.answer.status === 201).length,
      first503: sent.filter((s) => s.answer.status === 503).length,
      lost: lost.length,
      duplicated,
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
    for (const s of [...sent.filter((x) => x.answer.status === 201), ...retried]) expect(s.answer.body.invoice.id).toBe(idOf(s.key));
  } finally {
    await stack.close();
  }
}, 240_000);
