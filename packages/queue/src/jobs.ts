import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Uuid } from '@pay/schemas';

/**
 * Every queue, with the schema of its jobs. Producers and consumers both validate against
 * these, so a malformed job is refused where it is made and never half-processed.
 */
export const Queues = {
  /** One job per outgoing webhook event; consumed by the webhook-worker. */
  webhooks: {
    name: 'webhook-events',
    schema: Type.Object({
      eventId: Uuid,
      source: Type.Union([Type.Literal('crypto'), Type.Literal('invoicing')]),
      merchantId: Uuid,
      isTest: Type.Boolean(),
      event: Type.String({ minLength: 1 }),
      /** The event body exactly as the merchant receives it: `{ event, timestamp, <object> }`. */
      body: Type.Record(Type.String(), Type.Unknown()),
    }),
  },
  /** Advances one withdrawal through Pending → Processing → Completed | Failed. */
  withdrawals: {
    name: 'crypto-withdrawals',
    schema: Type.Object({ withdrawalId: Uuid }),
  },
} as const satisfies Record<string, { name: string; schema: TSchema }>;

export type QueueKey = keyof typeof Queues;
export type JobOf<K extends QueueKey> = Static<(typeof Queues)[K]['schema']>;
export type WebhookJob = JobOf<'webhooks'>;
export type WithdrawalJob = JobOf<'withdrawals'>;
