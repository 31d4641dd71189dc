// The endpoints table as the console reads and changes it, and the worker's replay (this
// package's store of `webhooks.endpoints`; the worker's statements are ../store.ts).
import { randomUUID } from 'node:crypto';
import { ApiError } from '@pay/schemas';
import type { Owner, SecretBox } from '@pay/auth';
import { sql, type ExpressionBuilder, type Selectable } from 'kysely';
import { webhookTables, type Queries, type Transactions } from '../db';
import type { DB, WebhookEndpoint } from '../generated/kysely/tables';
import { DISABLED_BY_MERCHANT, generateWebhookSecret, type ConsoleEndpoint, type EndpointChange, type EndpointInput } from '../endpoints';

const COLUMNS = ['id', 'url', 'events', 'description', 'secret_enc', 'previous_secret_expires_at', 'is_test', 'created_at', 'updated_at', 'disabled_at', 'disabled_reason', 'failing_since'] as const;

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
    previousSecretExpiresAt: r.previous_secret_expires_at,
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

/** The merchant's console webhooks in the caller's mode, oldest first (all of them, or a page). */
export async function listEndpoints(db: Queries, box: SecretBox, owner: Owner, page?: { limit: number; offset: number }): Promise<ConsoleEndpoint[]> {
  const rows = await ownConsoleEndpoints(db, owner)
    .select(COLUMNS)
    .$narrowType<{ url: string; secret_enc: string }>()
    .orderBy('created_at')
    .orderBy('id')
    .$if(page !== undefined, (q) => q.limit(page!.limit).offset(page!.offset))
    .execute();
  return rows.map((r) => view(box, r));
}

/** How many console webhooks the merchant has in the caller's mode (a page's total). */
export async function countEndpoints(db: Queries, owner: Owner): Promise<number> {
  const row = await ownConsoleEndpoints(db, owner)
    .select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('n'))
    .executeTakeFirstOrThrow();
  return row.n;
}

const ownConsoleEndpoints = (db: Queries, owner: Owner) =>
  webhookTables(db).selectFrom('endpoints').where('merchant_id', '=', owner.merchantId).where('is_test', '=', owner.isTest).where('kind', '=', 'console');

function notFound(id: string): ApiError {
  return new ApiError('NOT_FOUND', `Webhook ${id} not found`);
}

export async function getEndpoint(db: Queries, box: SecretBox, owner: Owner, id: string): Promise<ConsoleEndpoint> {
  const row = await webhookTables(db).selectFrom('endpoints').select(COLUMNS).$narrowType<{ url: string; secret_enc: string }>().where(consoleEndpoint(owner, id)).executeTakeFirst();
  if (!row) throw notFound(id);
  return view(box, row);
}

/**
 * Changes what is given. `enabled: false` disables it as its merchant (a webhook disabled
 * already keeps its first reason and time); `enabled: true` enables it and forgets its failing
 * streak. Run it where the caller locked the row (lockEndpoint) when it must know what changed.
 */
export async function updateEndpoint(db: Queries, box: SecretBox, owner: Owner, id: string, input: EndpointChange, now: Date): Promise<ConsoleEndpoint> {
  const row = await webhookTables(db)
    .updateTable('endpoints')
    .set((eb) => ({
      ...(input.url !== undefined ? { url: input.url } : {}),
      ...(input.events !== undefined ? { events: [...new Set(input.events)] } : {}),
      ...(input.description !== undefined ? { description: input.description ?? null } : {}),
      ...(input.enabled === false
        ? { disabled_at: eb.fn.coalesce('disabled_at', eb.val(now)), disabled_reason: eb.fn.coalesce('disabled_reason', eb.val(DISABLED_BY_MERCHANT)) }
        : {}),
      ...(input.enabled === true ? { disabled_at: null, disabled_reason: null, failing_since: null, disabled_announced_at: null, disabled_emailed_at: null } : {}),
      updated_at: now,
    }))
    .where(consoleEndpoint(owner, id))
    .returning(COLUMNS)
    .$narrowType<{ url: string; secret_enc: string }>()
    .executeTakeFirst();
  if (!row) throw notFound(id);
  return view(box, row);
}

/** The owner's console webhook's row, locked FOR UPDATE in the caller's transaction: whether it is disabled now. */
export async function lockEndpoint(tx: Queries, owner: Owner, id: string): Promise<{ disabledAt: Date | null }> {
  const row = await webhookTables(tx).selectFrom('endpoints').select('disabled_at').where(consoleEndpoint(owner, id)).forUpdate().executeTakeFirst();
  if (!row) throw notFound(id);
  return { disabledAt: row.disabled_at };
}

/**
 * A disabled endpoint's deliveries still waiting become `failed` (replayable), as the worker
 * does when it disables one itself; a lease held by a worker sending right now is left to it.
 */
export async function failPendingDeliveriesOf(tx: Queries, endpointId: string): Promise<void> {
  await webhookTables(tx)
    .updateTable('deliveries')
    .set((eb) => ({ status: 'failed', next_attempt_at: null, last_error: eb.fn.coalesce('last_error', sql.lit('not sent: the endpoint is disabled')) }))
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'pending')
    .where('lease_owner', 'is', null)
    .execute();
}

/** Deletes the webhook with its delivery history; nothing more is sent to it. */
export async function deleteEndpoint(db: Queries, owner: Owner, id: string): Promise<void> {
  const res = await webhookTables(db).deleteFrom('endpoints').where(consoleEndpoint(owner, id)).executeTakeFirst();
  if (res.numDeletedRows === 0n) throw notFound(id);
}

/**
 * A new secret, signing from the next request on (the worker reads secrets when it sends).
 * With an overlap the secret it replaces keeps signing beside it until `now + overlapMs`
 * (X-SVC-Signatures carries both; X-SVC-Signature stays the old one's), so a receiver can move
 * to the new secret without losing a delivery; without one (0, the console's default as the
 * spec says) the old one verifies nothing more at once. A rotation during an overlap replaces
 * the secret that was in force; the one before it stops.
 */
export async function rotateEndpointSecret(
  db: Queries,
  box: SecretBox,
  owner: Owner,
  id: string,
  now: Date,
  overlapMs = 0,
): Promise<{ secret: string; previousSecretExpiresAt: Date | null }> {
  const secret = generateWebhookSecret();
  const until = overlapMs > 0 ? new Date(now.getTime() + overlapMs) : null;
  const res = await webhookTables(db)
    .updateTable('endpoints')
    .set((eb) => ({
      secret_enc: box.seal(secret),
      // The right-hand side reads the row as it was: the secret being replaced.
      previous_secret_enc: until ? eb.ref('secret_enc') : null,
      previous_secret_expires_at: until,
      updated_at: now,
    }))
    .where(consoleEndpoint(owner, id))
    .executeTakeFirst();
  if (res.numUpdatedRows === 0n) throw notFound(id);
  return { secret, previousSecretExpiresAt: until };
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
    await tables.updateTable('endpoints').set({ disabled_at: null, disabled_reason: null, failing_since: null, disabled_announced_at: null, disabled_emailed_at: null, updated_at: now }).where('id', '=', id).execute();
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

const DISABLED_COLUMNS = ['id', 'merchant_id', 'is_test', 'url', 'description', 'disabled_at', 'disabled_reason', 'failing_since'] as const;

/** Console webhooks disabled and not yet announced (these ids, or any), oldest disabling first, locked SKIP LOCKED in the caller's transaction. */
export function lockUnannouncedDisabled(tx: Queries, o: { ids?: string[]; limit: number }) {
  return webhookTables(tx)
    .selectFrom('endpoints')
    .select(DISABLED_COLUMNS)
    .where('kind', '=', 'console')
    .where('disabled_at', 'is not', null)
    .where('disabled_announced_at', 'is', null)
    .$if(o.ids !== undefined, (q) => q.where((eb) => eb('id', '=', eb.fn<string>('any', [eb.val(o.ids!)]))))
    .orderBy('disabled_at')
    .limit(o.limit)
    .forUpdate()
    .skipLocked()
    .execute();
}

/** Their disabling announced now (announceDisabledIn). */
export async function markDisabledAnnounced(tx: Queries, ids: string[], now: Date): Promise<void> {
  if (ids.length === 0) return;
  await webhookTables(tx).updateTable('endpoints').set({ disabled_announced_at: now }).where('id', 'in', ids).execute();
}

/** A webhook's row while it is still disabled since `disabledAt` and that disabling's e-mail is not sent yet. */
export function disabledEndpointRow(db: Queries, id: string, disabledAt: Date) {
  return webhookTables(db)
    .selectFrom('endpoints')
    .select(DISABLED_COLUMNS)
    .where('id', '=', id)
    .where('disabled_at', '=', disabledAt)
    .where('disabled_emailed_at', 'is', null)
    .executeTakeFirst();
}

/** The e-mail of the disabling since `disabledAt` was sent (nothing if the webhook was enabled since). */
export async function markDisabledEmailed(db: Queries, id: string, disabledAt: Date, now: Date): Promise<void> {
  await webhookTables(db).updateTable('endpoints').set({ disabled_emailed_at: now }).where('id', '=', id).where('disabled_at', '=', disabledAt).where('disabled_emailed_at', 'is', null).execute();
}

/** Console webhooks disabled since `since`, announced, whose e-mail is not sent: oldest disabling first. */
export function unemailedDisabled(db: Queries, o: { since: Date; limit: number }) {
  return webhookTables(db)
    .selectFrom('endpoints')
    .select(['id', 'disabled_at'])
    .where('kind', '=', 'console')
    .where('disabled_at', '>=', o.since)
    .where('disabled_announced_at', 'is not', null)
    .where('disabled_emailed_at', 'is', null)
    .orderBy('disabled_at')
    .limit(o.limit)
    .execute();
}
