import { Type } from '@sinclair/typebox';
import { assertValid } from '@pay/schemas';
import { defineEvents, WEBHOOK_HEADERS } from './catalogue';

describe('an event catalogue', () => {
  const events = defineEvents('crypto', 'Sent to the merchant.', {
    'thing.made': {
      summary: 'A thing was made.',
      fields: { thing: Type.Object({ id: Type.String(), at: Type.String() }, { additionalProperties: false }) },
      sample: (at) => ({ thing: { id: 'thing-1', at: at.toISOString() } }),
    },
    'thing.lost': {
      summary: 'A thing was lost.',
      fields: { thing: Type.Object({ id: Type.String() }, { additionalProperties: false }), reason: Type.String() },
      sample: () => ({ thing: { id: 'thing-1' }, reason: 'Test event' }),
    },
  });

  it('lists its kinds in the order declared, each body the envelope around its fields', () => {
    expect(events.kinds).toEqual(['thing.made', 'thing.lost']);
    const envelope = ['event', 'timestamp', 'livemode', 'id', 'type', 'createdAt', 'source'];
    expect(Object.keys(events.bodies['thing.lost'].properties)).toEqual([...envelope, 'thing', 'reason']);
    expect(events.bodies['thing.lost'].required).toEqual([...envelope, 'thing', 'reason']);
    expect(() => assertValid(events.bodies['thing.made'], { event: 'thing.lost', timestamp: 1, livemode: true, ...events.sample('thing.made', new Date(), true) })).toThrow();
  });

  it('documents each kind with its summary, body, headers and an example body valid against it, the same on every run', () => {
    const docs = events.webhookDocs();
    expect(Object.keys(docs)).toEqual(['thing.made', 'thing.lost']);
    for (const kind of events.kinds) {
      const doc = docs[kind]!;
      expect(doc.body).toBe(events.bodies[kind]);
      expect(doc.headers).toBe(WEBHOOK_HEADERS);
      expect(doc.description).toMatch(/^Sent to the merchant\. Timeout 10 s/);
      assertValid(doc.body, doc.example, { what: `${kind} example` });
    }
    expect(docs['thing.made']!.summary).toBe('A thing was made.');
    expect(events.webhookDocs()).toEqual(docs);
  });
});
