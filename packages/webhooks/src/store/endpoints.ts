// The endpoints table as the console reads and changes it, and the worker's replay (this
// package's store of `webhooks.endpoints`; the worker's statements are ../store.ts).
import { randomUUID } from 'node:crypto';
import { ApiError } from '@pay/schemas';
import type { Owner, SecretBox } from '@pay/auth';
import type { ExpressionBuilder, Selectable } from 'kysely';
import { webhookTables, type Queries, type Transactions } from '../db';
import type { DB, WebhookEndpoint } from '../generated/kysely/tables';
import { generateWebhookSecret, type ConsoleEndpoint, type EndpointInput } from '../endpoints';

const COLUMNS = ['id', 'url', 'events', 'description', 'secret_enc', 'is_test', 'created_at', 'updated_at', 'disabled_at', 'disabled_reason', 'failing_since'] as const;

/** A console endpoint's row: console endpoints always have a URL and a sealed secret. */
type EndpointRow = Omit<Pick<Selectable<WebhookEndpoint>, (typeof COLUMNS)[number]>, 'url' | 'secret_enc'> & { url: string; secret_enc: string };

/** The owner's endpoint of this id, of any kind. */
export const ownEndpoint = (owner: Owner, id: string) => (eb: ExpressionBuilder<DB, 'endpoints'>) =>
  eb.and([eb('id', '=', id), eb('merchant_id', '=', owner.merchantId), eb('is_test', '=', owner.isTest)]);

/** The owner's console endpoint of this id. */
export const consoleEndpoint = (owner: Owner, id: string) => (eb: ExpressionBuilder<DB, 'endpoints'>) => eb.and([ownEndpoint(owner, id)(eb), eb('kind', '=', 'console')]);

function view(box: SecretBox, r: EndpointRow): ConsoleEndpoint {
  return {
    id: r.id,
    url: r.url,
    events: r.events,
    description: r.description,
    secret: box.open(r.secret_enc),
    mode: r.is_test ? 'test' : 'live',
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    disabledAt: r.disabled_at,
    disabledReason: r.disabled_reason,
    failingSince: r.failing_since,
  };
}

export async function createEndpoint(db: Queries, box: SecretBox, owner: Owner, input: EndpointInput, now: Date): Promise<ConsoleEndpoint> {
  const row = await webhookTables(db)
    .insertInto('endpoints')
    .values({
      id: randomUUID(),
      merchant_id: owner.merchantId,
      is_test: owner.isTest,
      kind: 'console',
      url: input.url,
      description: input.description ?? null,
      events: [...new Set(input.events)],
      secret_enc: box.seal(generateWebhookSecret()),
      created_at: now,
      updated_at: now,
    })
    .returning(COLUMNS)
    .$narrowType<{ url: string; secret_enc: string }>()
    .executeTakeFirstOrThrow();
  return view(box, row);
}

/** The merchant's console webhooks in the caller's mode, oldest first. */
export async function listEndpoints(db: Queries, box: SecretBox, owner: Owner): Promise<ConsoleEndpoint[]> {
  const rows = await webhookTables(db)
    .selectFrom('endpoints')
    .select(COLUMNS)
    .$narrowType<{ url: string; secret_enc: string }>()
    .where('merchant_id', '=', owner.merchantId)
    .where('is_test', '=', owner.isTest)
    .where('kind', '=', 'console')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((r) => view(box, r));
}

function notFound(id: string): ApiError {
  return new ApiError('NOT_FOUND', `Webhook ${id} not found`);
}

export async function getEndpoint(db: Queries, box: SecretBox, owner: Owner, id: string): Promise<ConsoleEndpoint> {
  const row = await webhookTables(db).selectFrom('endpoints').select(COLUMNS).$narrowType<{ url: string; secret_enc: string }>().where(consoleEndpoint(owner, id)).executeTakeFirst();
  if (!row) throw notFound(id);
  return view(box, row);
}

export async function updateEndpoint(db: Queries, box: SecretBox, owner: Owner, id: string, input: Partial<EndpointInput>, now: Date): Promise<ConsoleEndpoint> {
  const row = await webhookTables(db)
    .updateTable('endpoints')
    .set({
      ...(input.url !== undefined ? { url: input.url } : {}),
      ...(input.events !== undefined ? { events: [...new Set(input.events)] } : {}),
      ...(input.description !== undefined ? { description: input.description ?? null } : {}),
      updated_at: now,
    })
    .where(consoleEndpoint(owner, id))
    .returning(COLUMNS)
    .$narrowType<{ url: string; secret_enc: string }>()
    .executeTakeFirst();
  if (!row) throw notFound(id);
  return view(box, row);
}

/** Deletes the webhook with its delivery history; nothing more is sent to it. */
export async function deleteEndpoint(db: Queries, owner: Owner, id: string): Promise<void> {
  const res = await webhookTables(db).deleteFrom('endpoints').where(consoleEndpoint(owner, id)).executeTakeFirst();
  if (res.numDeletedRows === 0n) throw notFound(id);
}

/**
 * A new secret at once: the worker reads secrets when it sends, so the next request is signed
 * with the new one and the old one verifies nothing more.
 */
export async function rotateEndpointSecret(db: Queries, box: SecretBox, owner: Owner, id: string, now: Date): Promise<string> {
  const secret = generateWebhookSecret();
  const res = await webhookTables(db).updateTable('endpoints').set({ secret_enc: box.seal(secret), updated_at: now }).where(consoleEndpoint(owner, id)).executeTakeFirst();
  if (res.numUpdatedRows === 0n) throw notFound(id);
  return secret;
}

/**
 * Re-enables an endpoint (disabled or still failing) and puts back on the schedule every
 * delivery it missed: each `failed` delivery whose last try was since the endpoint started
 * failing gets a fresh schedule (first attempt now, same delivery id). Returns their ids.
 */
export async function reenableAndReplay(db: Transactions, owner: Owner, id: string, now: Date): Promise<string[]> {
  return db.$transaction(async (tx) => {
    const tables = webhookTables(tx);
    const endpoint = await tables
      .selectFrom('endpoints')
      .select(['failing_since', 'disabled_at'])
      .where(ownEndpoint(owner, id))
      .forUpdate()
      .executeTakeFirst();
    if (!endpoint) throw notFound(id);
    const since = endpoint.failing_since ?? endpoint.disabled_at;
    await tables.updateTable('endpoints').set({ disabled_at: null, disabled_reason: null, failing_since: null, updated_at: now }).where('id', '=', id).execute();
    if (!since) return [];
    const rows = await tables
      .updateTable('deliveries')
      .set({ status: 'pending', attempts: 0, next_attempt_at: now })
      .where('endpoint_id', '=', id)
      .where('status', '=', 'failed')
      .where((eb) => eb(eb.fn.coalesce('last_attempt_at', 'created_at'), '>=', since))
      .returning('id')
      .execute();
    return rows.map((r) => r.id);
  });
}
