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
import { claimDue, dispatchEvents, heartbeat, retireWorker } from './store';

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
