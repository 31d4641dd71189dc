import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import { SecretBox } from '@pay/auth';
import { eventually } from '@pay/testing';
import { testDb } from '@pay/db/src/testing';
import { PRUNE_BATCH } from '@pay/runtime';
import { fingerprintOf, IDEMPOTENCY_HEARTBEAT_MS, IDEMPOTENCY_LOCK_MS, withIdempotency, type IdempotentRun } from './idempotency';
import { PgIdempotencyStore, pruneIdempotencyKeys } from './store/idempotency';
import * as rows from '../test';

/** A caller's client, as a service passes its own. */
const sql = testDb('kit', 2);
const store = new PgIdempotencyStore(sql, SecretBox.fromEnv(process.env.SECRETS_KEY), 'kit-test');
afterAll(() => sql.$close());

/** What withIdempotency reads of a request: the key header, method, path and raw body. */
function requestWith(key: string): Request {
  return { header: (name: string) => (name === 'idempotency-key' ? key : undefined), method: 'POST', originalUrl: '/things', rawBody: Buffer.from('{}') } as unknown as Request;
}
const response = { setHeader: () => undefined } as unknown as Response;

const claimRow = (key: string) => rows.claimRow(sql, 'kit-test:scope', key);

/** What a process killed mid-request leaves: its claim, last refreshed `ms` ago. */
const ageClaim = (key: string, ms: number) => rows.ageClaim(sql, 'kit-test:scope', key, ms);

describe('idempotency claims', () => {
  it('a claim abandoned for IDEMPOTENCY_LOCK_MS is taken over, and the taker is told it resumes', async () => {
    const key = randomUUID();
    expect(await store.claim('scope', key, 'f')).toEqual({ kind: 'claimed', resumed: false });
    expect(await store.claim('scope', key, 'f')).toEqual({ kind: 'in_progress' });
    await ageClaim(key, IDEMPOTENCY_LOCK_MS - 2000);
    expect(await store.claim('scope', key, 'f')).toEqual({ kind: 'in_progress' });
    await ageClaim(key, IDEMPOTENCY_LOCK_MS + 1000);
    expect(await store.claim('scope', key, 'other')).toEqual({ kind: 'mismatch' }); // another request never takes it
    expect(await store.claim('scope', key, 'f')).toEqual({ kind: 'claimed', resumed: true });
  });

  it('a running request refreshes its claim, so it never looks abandoned', async () => {
    const key = randomUUID();
    let finish!: () => void;
    const running = withIdempotency(store, 'scope', requestWith(key), response, () => new Promise((resolve) => (finish = () => resolve({ status: 201, text: '{}' }))));
    await eventually(async () => expect(await claimRow(key)).not.toBeNull());
    await ageClaim(key, IDEMPOTENCY_LOCK_MS + 1000);
    // The next beat brings it back within the lock time: a retry now waits instead of running twice.
    await eventually(async () => expect((await claimRow(key))!.age_ms).toBeLessThan(IDEMPOTENCY_HEARTBEAT_MS * 2), IDEMPOTENCY_HEARTBEAT_MS * 5, 100);
    expect(await store.claim('scope', key, fingerprintOf(requestWith(key)))).toEqual({ kind: 'in_progress' });
    finish();
    await running;
    expect((await claimRow(key))!.status).toBe('done');
  }, 30_000);

  it('a lost database leaves the claim to go stale (the request may have written); any other failure releases it', async () => {
    const lost = randomUUID();
    const unavailable = new Error('Connection terminated unexpectedly'); // what pg says when Postgres goes away mid-query
    await expect(withIdempotency(store, 'scope', requestWith(lost), response, () => Promise.reject(unavailable))).rejects.toBe(unavailable);
    expect((await claimRow(lost))!.status).toBe('in_progress');

    const failed = randomUUID();
    await expect(withIdempotency(store, 'scope', requestWith(failed), response, () => Promise.reject(new Error('bug')))).rejects.toThrow('bug');
    expect(await claimRow(failed)).toBeNull();
  });

  it('hands the handler its key, and `resumed` only when it took an abandoned claim over', async () => {
    const key = randomUUID();
    const seen: (IdempotentRun | undefined)[] = [];
    const run = (i?: IdempotentRun) => {
      seen.push(i);
      return Promise.reject(new Error('Connection terminated unexpectedly'));
    };
    await withIdempotency(store, 'scope', requestWith(key), response, run).catch(() => undefined);
    await ageClaim(key, IDEMPOTENCY_LOCK_MS + 1000);
    await withIdempotency(store, 'scope', requestWith(key), response, run).catch(() => undefined);
    expect(seen).toEqual([
      { key, resumed: false },
      { key, resumed: true },
    ]);
  });
});

describe('stored answers', () => {
  it('are kept sealed at rest: the answer text is not in the table, and replays open it', async () => {
    const key = randomUUID();
    const text = JSON.stringify({ apiKey: 'sk_live_secret-credential', hmacSecret: 'hmac-secret-value' });
    expect(await store.claim('scope', key, 'f')).toEqual({ kind: 'claimed', resumed: false });
    await store.complete('scope', key, { status: 201, text });
    const body = await rows.storedAnswerText(sql, 'kit-test:scope', key);
    expect(body).not.toContain('sk_live_secret-credential');
    expect(body).not.toContain('hmac-secret-value');
    expect(await store.claim('scope', key, 'f')).toEqual({ kind: 'replay', status: 201, text });
  });

  it('are pruned 48 h after they were made, in batches, and younger ones stay', async () => {
    const scope = `kit-prune:${randomUUID()}`;
    const now = new Date();
    const ago = (hours: number) => new Date(now.getTime() - hours * 3_600_000);
    const row = (key: string, at: Date) => ({ key, at });
    await rows.insertDoneKeys(sql, scope, [row('within-grace', ago(30)), row('fresh', ago(1)), ...Array.from({ length: PRUNE_BATCH + 3 }, (_, i) => row(`expired-${i}`, ago(49)))]);
    expect(await pruneIdempotencyKeys(sql, now)).toBeGreaterThanOrEqual(PRUNE_BATCH + 3);
    expect(await rows.keysOf(sql, scope)).toEqual(['fresh', 'within-grace']);
  });
});
