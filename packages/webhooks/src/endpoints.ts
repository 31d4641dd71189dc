import { randomBytes, randomUUID } from 'node:crypto';
import { ApiError } from '@pay/schemas';
import type { Owner, SecretBox } from '@pay/auth';
import { outboundUrlProblem } from '@pay/kit';
import type { Sql } from './db';

const ENDPOINTS = 'webhooks.endpoints';
const DELIVERIES = 'webhooks.deliveries';

export type EndpointKind = 'console' | 'merchant' | 'target';

/** A console webhook as the console shows it, secret included (the spec lets it be viewed again). */
export interface ConsoleEndpoint {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  secret: string;
  createdAt: Date;
  updatedAt: Date;
  /** Set when the endpoint failed every attempt for 3 days; nothing is sent until it is re-enabled. */
  disabledAt: Date | null;
  disabledReason: string | null;
  failingSince: Date | null;
}

/** A console webhook's signing secret: shown in the console, sealed at rest like HMAC secrets. */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

export interface UrlPolicy {
  allowPrivate: boolean;
  /** Production deployments require HTTPS. */
  requireHttps: boolean;
}

/** Why `url` cannot be a webhook destination, as a VALIDATION_ERROR on `url`. */
export function assertWebhookUrl(url: string, policy: UrlPolicy): void {
  const problem =
    outboundUrlProblem(url, { allowPrivate: policy.allowPrivate }) ??
    (policy.requireHttps && !url.toLowerCase().startsWith('https://') ? 'must use https' : null);
  if (problem) throw new ApiError('VALIDATION_ERROR', `url ${problem}`, [{ field: 'url', message: problem }]);
}

interface EndpointRow {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  secret_enc: string;
  created_at: Date;
  updated_at: Date;
  disabled_at: Date | null;
  disabled_reason: string | null;
  failing_since: Date | null;
}

const COLUMNS = 'id::text, url, events, description, secret_enc, created_at, updated_at, disabled_at, disabled_reason, failing_since';

function view(box: SecretBox, r: EndpointRow): ConsoleEndpoint {
  return {
    id: r.id,
    url: r.url,
    events: r.events,
    description: r.description,
    secret: box.open(r.secret_enc),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    disabledAt: r.disabled_at,
    disabledReason: r.disabled_reason,
    failingSince: r.failing_since,
  };
}

export interface EndpointInput {
  url: string;
  events: string[];
  description?: string | null;
}

export async function createEndpoint(db: Sql, box: SecretBox, owner: Owner, input: EndpointInput, now: Date): Promise<ConsoleEndpoint> {
  const [row] = await db.$queryRawUnsafe<EndpointRow[]>(
    `INSERT INTO ${ENDPOINTS} (id, merchant_id, is_test, kind, url, description, events, secret_enc, created_at, updated_at)
     VALUES ($1::uuid, $2::uuid, $3, 'console', $4, $5, $6::text[], $7, $8, $8) RETURNING ${COLUMNS}`,
    randomUUID(),
    owner.merchantId,
    owner.isTest,
    input.url,
    input.description ?? null,
    [...new Set(input.events)],
    box.seal(generateWebhookSecret()),
    now,
  );
  return view(box, row!);
}

/** The merchant's console webhooks in the caller's mode, oldest first. */
export async function listEndpoints(db: Sql, box: SecretBox, owner: Owner): Promise<ConsoleEndpoint[]> {
  const rows = await db.$queryRawUnsafe<EndpointRow[]>(
    `SELECT ${COLUMNS} FROM ${ENDPOINTS} WHERE merchant_id = $1::uuid AND is_test = $2 AND kind = 'console' ORDER BY created_at, id`,
    owner.merchantId,
    owner.isTest,
  );
  return rows.map((r) => view(box, r));
}

function notFound(id: string): ApiError {
  return new ApiError('NOT_FOUND', `Webhook ${id} not found`);
}

export async function getEndpoint(db: Sql, box: SecretBox, owner: Owner, id: string): Promise<ConsoleEndpoint> {
  const [row] = await db.$queryRawUnsafe<EndpointRow[]>(
    `SELECT ${COLUMNS} FROM ${ENDPOINTS} WHERE id = $1::uuid AND merchant_id = $2::uuid AND is_test = $3 AND kind = 'console'`,
    id,
    owner.merchantId,
    owner.isTest,
  );
  if (!row) throw notFound(id);
  return view(box, row);
}

export async function updateEndpoint(db: Sql, box: SecretBox, owner: Owner, id: string, input: Partial<EndpointInput>, now: Date): Promise<ConsoleEndpoint> {
  const [row] = await db.$queryRawUnsafe<EndpointRow[]>(
    `UPDATE ${ENDPOINTS} SET url = coalesce($4, url), events = coalesce($5::text[], events),
            description = CASE WHEN $6 THEN $7 ELSE description END, updated_at = $8
      WHERE id = $1::uuid AND merchant_id = $2::uuid AND is_test = $3 AND kind = 'console' RETURNING ${COLUMNS}`,
    id,
    owner.merchantId,
    owner.isTest,
    input.url ?? null,
    input.events ? [...new Set(input.events)] : null,
    input.description !== undefined,
    input.description ?? null,
    now,
  );
  if (!row) throw notFound(id);
  return view(box, row);
}

/** Deletes the webhook with its delivery history; nothing more is sent to it. */
export async function deleteEndpoint(db: Sql, owner: Owner, id: string): Promise<void> {
  const n = await db.$executeRawUnsafe(
    `DELETE FROM ${ENDPOINTS} WHERE id = $1::uuid AND merchant_id = $2::uuid AND is_test = $3 AND kind = 'console'`,
    id,
    owner.merchantId,
    owner.isTest,
  );
  if (n === 0) throw notFound(id);
}

/**
 * A new secret at once: the worker reads secrets when it sends, so the next request is signed
 * with the new one and the old one verifies nothing more.
 */
export async function rotateEndpointSecret(db: Sql, box: SecretBox, owner: Owner, id: string, now: Date): Promise<string> {
  const secret = generateWebhookSecret();
  const n = await db.$executeRawUnsafe(
    `UPDATE ${ENDPOINTS} SET secret_enc = $4, updated_at = $5 WHERE id = $1::uuid AND merchant_id = $2::uuid AND is_test = $3 AND kind = 'console'`,
    id,
    owner.merchantId,
    owner.isTest,
    box.seal(secret),
    now,
  );
  if (n === 0) throw notFound(id);
  return secret;
}

/**
 * Re-enables an endpoint (disabled or still failing) and puts back on the schedule every
 * delivery it missed: each `failed` delivery whose last try was since the endpoint started
 * failing gets a fresh schedule (first attempt now, same delivery id). Returns their ids.
 */
export async function reenableAndReplay(db: Sql & { $transaction<T>(fn: (tx: Sql) => Promise<T>): Promise<T> }, owner: Owner, id: string, now: Date): Promise<string[]> {
  return db.$transaction(async (tx) => {
    const [endpoint] = await tx.$queryRawUnsafe<{ failing_since: Date | null; disabled_at: Date | null }[]>(
      `SELECT failing_since, disabled_at FROM ${ENDPOINTS} WHERE id = $1::uuid AND merchant_id = $2::uuid AND is_test = $3 FOR UPDATE`,
      id,
      owner.merchantId,
      owner.isTest,
    );
    if (!endpoint) throw notFound(id);
    const since = endpoint.failing_since ?? endpoint.disabled_at;
    await tx.$executeRawUnsafe(
      `UPDATE ${ENDPOINTS} SET disabled_at = NULL, disabled_reason = NULL, failing_since = NULL, updated_at = $2 WHERE id = $1::uuid`,
      id,
      now,
    );
    if (!since) return [];
    const rows = await tx.$queryRawUnsafe<{ id: string }[]>(
      `UPDATE ${DELIVERIES} SET status = 'pending', attempts = 0, next_attempt_at = $3
        WHERE endpoint_id = $1::uuid AND status = 'failed' AND coalesce(last_attempt_at, created_at) >= $2
        RETURNING id::text`,
      id,
      since,
      now,
    );
    return rows.map((r) => r.id);
  });
}
