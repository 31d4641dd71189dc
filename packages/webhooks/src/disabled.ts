// `endpoint.disabled`: told to the merchant's other webhooks (those subscribed) and by e-mail
// whenever one of its webhooks is disabled, by the worker after 3 days of failures or by the
// merchant. Announced in one transaction with what the caller queues beside it (the e-mail's
// outbox job), and marked announced in the same, so an announcement is made once per disabling
// and one missed by a crash is made by the next sweep (announceDisabledEndpoints without ids).
import { Type } from '@sinclair/typebox';
import type { Queries, Transactions } from './db';
import { disabledEndpointRow, lockUnannouncedDisabled, markDisabledAnnounced, markDisabledEmailed, unemailedDisabled } from './store/endpoints';
import { recordEvent } from './events';
import type { EventKind } from './catalogue';

export const ENDPOINT_DISABLED = 'endpoint.disabled';

/** The disabled webhook, as `endpoint.disabled` shows it. */
export const DisabledEndpointObject = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    url: Type.String(),
    description: Type.Union([Type.String(), Type.Null()]),
    disabledAt: Type.String({ format: 'date-time' }),
    disabledReason: Type.String({ description: '`every delivery failed for 3 days` or `disabled by the merchant`' }),
    failingSince: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { additionalProperties: false },
);

/** The kind, for the catalogue of the service whose webhooks these are (invoicing's). */
export const endpointDisabledEvent: EventKind = {
  summary:
    'One of the merchant’s webhooks was disabled (every delivery failed for 3 days, or the merchant disabled it); sent to its other webhooks subscribed to this kind, and by e-mail. Nothing is sent to it until it is enabled again; replay what it missed.',
  fields: { endpoint: DisabledEndpointObject },
  sample: (at) => ({
    endpoint: {
      id: '00000000-0000-4000-8000-000000000000',
      url: 'https://example.com/webhooks',
      description: 'Test event',
      disabledAt: at.toISOString(),
      disabledReason: 'every delivery failed for 3 days',
      failingSince: new Date(at.getTime() - 3 * 24 * 3600_000).toISOString(),
    },
  }),
};

/** A disabled webhook being announced: what the event says, and whose it is. */
export interface DisabledEndpoint {
  id: string;
  merchantId: string;
  isTest: boolean;
  url: string;
  description: string | null;
  disabledAt: Date;
  disabledReason: string;
  failingSince: Date | null;
}

/** What the caller writes beside each announcement, in its transaction (the e-mail's outbox job). */
export type AlsoOnDisabled = (tx: Queries, endpoint: DisabledEndpoint) => Promise<void>;

/**
 * Records `endpoint.disabled` for console webhooks disabled and not yet announced (these `ids`,
 * or any, up to `limit`), each with `also` (its e-mail), and marks them announced: in the
 * caller's transaction, rows locked SKIP LOCKED so two sweeps never announce one twice.
 * Returns the ids announced.
 */
export async function announceDisabledIn(tx: Queries, o: { now: Date; ids?: string[]; limit?: number; also: AlsoOnDisabled }): Promise<string[]> {
  const rows = await lockUnannouncedDisabled(tx, { ids: o.ids, limit: o.limit ?? 100 });
  for (const r of rows) {
    const endpoint: DisabledEndpoint = {
      id: r.id,
      merchantId: r.merchant_id,
      isTest: r.is_test,
      url: r.url ?? '',
      description: r.description,
      disabledAt: r.disabled_at!,
      disabledReason: r.disabled_reason ?? 'disabled',
      failingSince: r.failing_since,
    };
    await recordEvent(tx, {
      source: 'invoicing',
      owner: { merchantId: r.merchant_id, isTest: r.is_test },
      type: ENDPOINT_DISABLED,
      object: {
        endpoint: {
          id: endpoint.id,
          url: endpoint.url,
          description: endpoint.description,
          disabledAt: endpoint.disabledAt.toISOString(),
          disabledReason: endpoint.disabledReason,
          failingSince: endpoint.failingSince?.toISOString() ?? null,
        },
      },
      at: o.now.getTime(),
    });
    await o.also(tx, endpoint);
  }
  await markDisabledAnnounced(tx, rows.map((r) => r.id), o.now);
  return rows.map((r) => r.id);
}

/** announceDisabledIn in a transaction of its own (the worker's, after it disabled endpoints, and its sweep). */
export function announceDisabledEndpoints(db: Transactions, o: { now: Date; ids?: string[]; limit?: number; also: AlsoOnDisabled }): Promise<string[]> {
  return db.$transaction((tx) => announceDisabledIn(tx, o));
}

/** A webhook as its disabling e-mail names it (null once deleted, enabled again since `disabledAt`, or once that e-mail was sent). */
export async function disabledEndpointOf(db: Queries, id: string, disabledAt: Date): Promise<DisabledEndpoint | null> {
  const r = await disabledEndpointRow(db, id, disabledAt);
  if (!r) return null;
  return { id: r.id, merchantId: r.merchant_id, isTest: r.is_test, url: r.url ?? '', description: r.description, disabledAt: r.disabled_at!, disabledReason: r.disabled_reason ?? 'disabled', failingSince: r.failing_since };
}

/** The e-mail of the disabling since `disabledAt` reached the SMTP server: never sent again for it. */
export { markDisabledEmailed as disabledEmailSent };

/**
 * Disablings since `since`, announced, whose e-mail was never sent: its job lost with Redis, or
 * its attempts spent while the SMTP server was away. Oldest first.
 */
export async function disablingsNotEmailed(db: Queries, o: { since: Date; limit?: number }): Promise<{ id: string; disabledAt: Date }[]> {
  const rows = await unemailedDisabled(db, { since: o.since, limit: o.limit ?? 100 });
  return rows.map((r) => ({ id: r.id, disabledAt: r.disabled_at! }));
}
