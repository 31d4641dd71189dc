import { randomUUID } from 'node:crypto';
import { SecretBox } from '@pay/auth';
import { testDb } from '@pay/db/src/testing';
import { ApiError } from '@pay/schemas';
import { webhookTables, WEBHOOKS_SCHEMA } from './db';
import { Type } from '@sinclair/typebox';
import { eventsOf, recordEvent } from './events';
import { defineEvents } from './catalogue';
import { assertWebhookUrl } from './endpoints';
import { createEndpoint, deleteEndpoint, getEndpoint, listEndpoints, rotateEndpointSecret } from './store/endpoints';
import { claimDue, dispatchEvents, heartbeat, recordOutcomes, retireWorker, type ClaimedDelivery, type Outcome } from './store';

/** A caller's client, as the webhook worker and the services pass their own. */
const sql = testDb(WEBHOOKS_SCHEMA, 3);
const tables = webhookTables(sql);
const box = SecretBox.fromEnv(process.env.SECRETS_KEY);
afterAll(() => sql.$close());

const ownerOf = () => ({ merchantId: randomUUID(), isTest: true });
/** A service's catalogue as this package sees one (the real ones are the services'; a package imports none). */
const events = defineEvents('invoicing', 'Sent in tests.', {
  'invoice.paid': {
    summary: 'Paid.',
    fields: { invoice: Type.Object({ id: Type.String(), amount: Type.Number() }, { additionalProperties: false }) },
    sample: () => ({ invoice: { id: 'inv-1', amount: 1500.5 } }),
  },
});
const paid = (owner: ReturnType<typeof ownerOf>) =>
  ({ source: events.source, owner, type: 'invoice.paid', object: events.sample('invoice.paid', new Date(), !owner.isTest), at: Date.now() }) as const;

describe('events', () => {
  it('exist exactly when the transaction that records them commits, with the envelope as sent', async () => {
    const owner = ownerOf();
    await sql
      .$transaction(async (tx) => {
        await recordEvent(tx, paid(owner));
        throw new Error('roll back');
      })
      .catch(() => undefined);
    expect(await eventsOf(sql, owner)).toEqual([]);
    const e = paid(owner);
    const id = await sql.$transaction((tx) => recordEvent(tx, e));
    const [stored, ...more] = await eventsOf(sql, owner);
    expect(more).toEqual([]);
    expect(stored).toMatchObject({ id, source: 'invoicing', merchantId: owner.merchantId, isTest: true, type: 'invoice.paid', targetUrl: null });
    expect(stored!.rawBody).toBe(
      JSON.stringify({ event: 'invoice.paid', timestamp: e.at, livemode: false, id, type: 'invoice.paid', createdAt: new Date(e.at).toISOString(), source: 'invoicing', ...e.object }),
    );
  });

  it('are read back only when their body is the one their service declared for the kind', async () => {
    const drifted = ownerOf();
    await sql.$transaction((tx) => recordEvent(tx, { ...paid(drifted), object: { invoice: { id: 'inv-2', amount: '10.00' } } }));
    await expect(eventsOf(sql, drifted)).rejects.toThrow(/invoicing event invoice.paid does not match its documented schema: \(body\)\.invoice\.amount must be number/);
    const undeclared = ownerOf();
    await sql.$transaction((tx) => recordEvent(tx, { ...paid(undeclared), type: 'invoice.undeclared' }));
    await expect(eventsOf(sql, undeclared)).rejects.toThrow(/invoicing event invoice.undeclared has no documented body schema/);
  });
});

describe('console endpoints', () => {
  it('keep their signing secret sealed at rest, show it to their owner, rotate and delete it', async () => {
    const owner = ownerOf();
    const made = await createEndpoint(sql, box, owner, { url: 'https://merchant.example/hooks', events: ['invoice.paid', 'invoice.paid'] }, new Date());
    expect(made.events).toEqual(['invoice.paid']);
    expect(made.secret).toMatch(/^whsec_/);
    const row = await tables.selectFrom('endpoints').select('secret_enc').where('id', '=', made.id).executeTakeFirstOrThrow();
    expect(row.secret_enc).not.toContain(made.secret);
    expect((await listEndpoints(sql, box, owner)).map((e) => e.id)).toEqual([made.id]);
    expect(await listEndpoints(sql, box, { ...owner, isTest: false })).toEqual([]); // the other mode sees none

    const { secret: rotated } = await rotateEndpointSecret(sql, box, owner, made.id, new Date());
    expect(rotated).not.toBe(made.secret);
    expect((await getEndpoint(sql, box, owner, made.id)).secret).toBe(rotated);

    await deleteEndpoint(sql, owner, made.id);
    await expect(getEndpoint(sql, box, owner, made.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('refuse a URL to a private address or, where required, without https, naming the field', () => {
    const refusal = (url: string, policy = { allowPrivate: false, requireHttps: true }) => {
      try {
        assertWebhookUrl(url, policy);
        return null;
      } catch (err) {
        return err instanceof ApiError ? { code: err.code, details: err.details } : err;
      }
    };
    expect(refusal('https://127.0.0.1/hooks')).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ field: 'url' }] });
    expect(refusal('http://merchant.example/hooks')).toEqual({ code: 'VALIDATION_ERROR', details: [{ field: 'url', message: 'must use https' }] });
    expect(refusal('https://merchant.example/hooks')).toBeNull();
  });
});

describe('deliveries', () => {
  it('are written for the subscribed endpoints of an event, and one live worker holds each', async () => {
    const owner = ownerOf();
    const subscribed = await createEndpoint(sql, box, owner, { url: 'https://merchant.example/paid', events: ['invoice.paid'] }, new Date());
    const other = await createEndpoint(sql, box, owner, { url: 'https://merchant.example/other', events: ['invoice.expired'] }, new Date());
    const eventId = await sql.$transaction((tx) => recordEvent(tx, paid(owner)));
    const now = new Date(Date.now() + 1000);
    await dispatchEvents(sql, { limit: 10_000, now, merchantsWithUrl: async () => ({ live: [], test: [] }) });
    const written = await tables.selectFrom('deliveries').select(['endpoint_id', 'status']).where('event_id', '=', eventId).execute();
    expect(written).toEqual([{ endpoint_id: subscribed.id, status: 'pending' }]);
    expect(written.some((d) => d.endpoint_id === other.id)).toBe(false);

    const [first, second] = [randomUUID(), randomUUID()];
    try {
      await heartbeat(sql, first);
      await heartbeat(sql, second);
      const claim = (workerId: string) => claimDue(sql, { workerId, now, limit: 10_000, perEndpoint: 10_000, skipEndpoints: [] });
      expect((await claim(first)).filter((d) => d.endpointId === subscribed.id).map((d) => d.eventType)).toEqual(['invoice.paid']);
      expect((await claim(second)).filter((d) => d.endpointId === subscribed.id)).toEqual([]); // held by a live worker
      // A worker that stops beating loses what it held.
      await retireWorker(sql, first);
      expect((await claim(second)).filter((d) => d.endpointId === subscribed.id)).toHaveLength(1);
    } finally {
      await retireWorker(sql, first);
      await retireWorker(sql, second);
    }
  });
});

describe('deliveries written leased to the dispatching worker', () => {
  const none = async () => ({ live: [], test: [] });

  it('are held by it alone, as far as its room goes, in event order; the rest, and all of them once it dies, are claimed by others', async () => {
    // Whatever earlier tests left undispatched goes first, so the lease counts only this test's rows.
    await dispatchEvents(sql, { limit: 10_000, now: new Date(), merchantsWithUrl: none });
    const owner = ownerOf();
    const [a, b] = [
      await createEndpoint(sql, box, owner, { url: 'https://merchant.example/a', events: ['invoice.paid'] }, new Date()),
      await createEndpoint(sql, box, owner, { url: 'https://merchant.example/b', events: ['invoice.paid'] }, new Date()),
    ];
    const disabled = await createEndpoint(sql, box, owner, { url: 'https://merchant.example/off', events: ['invoice.paid'] }, new Date());
    await tables.updateTable('endpoints').set({ disabled_at: new Date() }).where('id', '=', disabled.id).execute();
    const eventIds = await sql.$transaction(async (tx) => {
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) ids.push(await recordEvent(tx, paid(owner)));
      return ids;
    });
    const [dispatcher, other] = [randomUUID(), randomUUID()];
    const now = new Date(Date.now() + 1000);
    const claim = (workerId: string, heldIds: string[] = []) =>
      claimDue(sql, { workerId, now, limit: 10_000, perEndpoint: 10_000, skipEndpoints: [], heldIds }).then((ds) => ds.filter((d) => eventIds.includes(JSON.parse(d.body).id)));
    try {
      await heartbeat(sql, dispatcher);
      await heartbeat(sql, other);
      const dispatched = await dispatchEvents(sql, { limit: 10_000, now, merchantsWithUrl: none, lease: { workerId: dispatcher, limit: 4 } });
      // 3 events x 3 endpoints; the disabled one's are written failed and never leased.
      expect([dispatched.events, dispatched.deliveries]).toEqual([3, 9]);
      expect(dispatched.leased.map((d) => [eventIds.indexOf(JSON.parse(d.body).id), d.endpointId === a.id || d.endpointId === b.id, d.status, d.attempts, d.manual])).toEqual([
        [0, true, 'pending', 0, false],
        [0, true, 'pending', 0, false],
        [1, true, 'pending', 0, false],
        [1, true, 'pending', 0, false],
      ]);
      const stored = await tables.selectFrom('deliveries').select(['id', 'lease_owner', 'status']).where('event_id', 'in', eventIds).execute();
      expect(stored.filter((d) => d.lease_owner === dispatcher).map((d) => d.id).sort()).toEqual(dispatched.leased.map((d) => d.id).sort());
      expect(stored.filter((d) => d.status === 'failed').map((d) => d.lease_owner)).toEqual([null, null, null]);

      // A live worker takes the two left over, never the leased ones.
      const taken = await claim(other);
      expect(taken.map((d) => JSON.parse(d.body).id)).toEqual([eventIds[2], eventIds[2]]);
      expect(taken.some((d) => dispatched.leased.some((l) => l.id === d.id))).toBe(false);
      // The dispatcher, had it lost this answer, would claim its own leases again.
      expect((await claim(dispatcher, [])).map((d) => d.id).sort()).toEqual(dispatched.leased.map((d) => d.id).sort());
      // Once the dispatcher is gone, another worker claims what it held.
      await retireWorker(sql, dispatcher);
      expect((await claim(other, taken.map((d) => d.id))).map((d) => d.id).sort()).toEqual(dispatched.leased.map((d) => d.id).sort());
    } finally {
      await retireWorker(sql, dispatcher);
      await retireWorker(sql, other);
    }
  });
});

describe('an endpoint disabled while its deliveries are in flight', () => {
  it('has the ones recorded after its disabling failed (replayable), not put back on the retry schedule', async () => {
    await dispatchEvents(sql, { limit: 10_000, now: new Date(), merchantsWithUrl: async () => ({ live: [], test: [] }) });
    const owner = ownerOf();
    const hook = await createEndpoint(sql, box, owner, { url: 'https://merchant.example/down', events: ['invoice.paid'] }, new Date());
    const now = new Date();
    // Failing for longer than AUTO_DISABLE_AFTER_MS: the next failure recorded disables it.
    await tables.updateTable('endpoints').set({ failing_since: new Date(now.getTime() - 4 * 24 * 3600_000) }).where('id', '=', hook.id).execute();
    await sql.$transaction(async (tx) => {
      await recordEvent(tx, paid(owner));
      await recordEvent(tx, paid(owner));
    });
    const worker = randomUUID();
    try {
      await heartbeat(sql, worker);
      const { leased } = await dispatchEvents(sql, { limit: 10_000, now, merchantsWithUrl: async () => ({ live: [], test: [] }), lease: { workerId: worker, limit: 10 } });
      expect(leased).toHaveLength(2);
      const failed = (d: ClaimedDelivery): Outcome => ({ delivery: d, attempt: { at: now, durationMs: 3, url: 'https://merchant.example/down', statusCode: 500, error: 'HTTP 500', responseBody: '', succeeded: false } });
      // Sent together, recorded in two batches (the worker flushes every few ms).
      expect(await recordOutcomes(sql, worker, [failed(leased[0]!)], now)).toEqual([hook.id]);
      expect(await recordOutcomes(sql, worker, [failed(leased[1]!)], now)).toEqual([]);
      const rows = await tables.selectFrom('deliveries').select(['status', 'next_attempt_at', 'attempts', 'lease_owner']).where('endpoint_id', '=', hook.id).execute();
      expect(rows).toEqual([
        { status: 'failed', next_attempt_at: null, attempts: 1, lease_owner: null },
        { status: 'failed', next_attempt_at: null, attempts: 1, lease_owner: null },
      ]);
    } finally {
      await retireWorker(sql, worker);
    }
  });
});
