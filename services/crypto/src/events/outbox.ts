import { randomUUID } from 'node:crypto';
import { outboxMessage, type OutboxWrite } from '@pay/queue';
import type { Clock } from '@pay/kit';
import type { Prisma } from '../generated/prisma/client';
import type { Owner } from '@pay/auth';

type Tx = Prisma.TransactionClient;

export type CryptoEvent = 'transaction.confirmed' | 'invoice.paid' | 'withdrawal.completed' | 'withdrawal.failed';

export async function writeOutbox(tx: Tx, msg: OutboxWrite): Promise<void> {
  await tx.outboxMessage.create({ data: { queue: msg.queue, jobId: msg.jobId, payload: msg.payload as Prisma.InputJsonValue } });
}

/**
 * Records a webhook event in the same transaction as the change it reports, so the event
 * exists exactly when the change does. Body: `{ event, timestamp, <object> }` (decisions.md §7).
 */
export async function emitEvent(
  tx: Tx,
  clock: Clock,
  owner: Owner,
  event: CryptoEvent,
  object: { key: 'transaction' | 'invoice' | 'withdrawal'; value: Record<string, unknown> },
): Promise<void> {
  const eventId = randomUUID();
  const body = { event, timestamp: clock.now().getTime(), [object.key]: object.value };
  await writeOutbox(
    tx,
    outboxMessage('webhooks', eventId, { eventId, source: 'crypto', merchantId: owner.merchantId, isTest: owner.isTest, event, body }),
  );
}
