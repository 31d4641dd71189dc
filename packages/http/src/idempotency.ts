import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import { ApiError } from '@pay/schemas';
import { isDatabaseUnavailable } from '@pay/db';

/** Stripe semantics: same key + same request within 24 h → first answer. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * A claim not refreshed for this long belongs to a request that died mid-way (its process was
 * killed, or it lost its database); a retry may take it over. This is how long a client's
 * retry after a crash can be answered 409 IDEMPOTENCY_IN_PROGRESS at most.
 */
export const IDEMPOTENCY_LOCK_MS = 10 * 1000;
/** How often a running request refreshes its claim: five beats fit in IDEMPOTENCY_LOCK_MS. */
export const IDEMPOTENCY_HEARTBEAT_MS = 2 * 1000;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** An answer as sent: status and the exact JSON text. */
export interface StoredReply {
  status: number;
  text: string;
}

export type Claim =
  /** `resumed`: the key was taken over from an earlier request that never finished (see IdempotentRun). */
  | { kind: 'claimed'; resumed: boolean }
  | { kind: 'replay'; status: number; text: string }
  | { kind: 'mismatch' }
  | { kind: 'in_progress' };

export interface IdempotencyStore {
  claim(scope: string, key: string, fingerprint: string): Promise<Claim>;
  /** Keeps a running request's claim from looking abandoned. */
  touch(scope: string, key: string): Promise<void>;
  complete(scope: string, key: string, reply: StoredReply): Promise<void>;
  release(scope: string, key: string): Promise<void>;
}

/** Seals stored answers: some carry credentials (a new API key, an HMAC secret). */
export interface Sealer {
  seal(plain: string): string;
  open(envelope: string): string;
}

/**
 * The table, owned by this package (Postgres schema `kit`, the name it had in kit; see
 * prisma/schema.prisma), on the caller's client: qualified with its schema, since the
 * caller's search_path is its own.
 */
export function fingerprintOf(req: Request): string {
  const hash = createHash('sha256').update(`${req.method} ${req.originalUrl.split('?')[0]}\n`);
  if (req.uploads) {
    // A multipart body differs on every send (the client draws a new boundary): the same
    // form is its text fields and its files' bytes, so that is what is compared.
    const fields = Object.entries((req.body ?? {}) as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1));
    hash.update(JSON.stringify(fields));
    for (const [name, file] of Object.entries(req.uploads).sort(([a], [b]) => (a < b ? -1 : 1))) {
      hash.update(`\n${name}:${file ? createHash('sha256').update(file.bytes).digest('hex') : '-'}`);
    }
    return hash.digest('hex');
  }
  return hash.update(req.rawBody ?? Buffer.alloc(0)).digest('hex');
}

/**
 * What a handler learns of its request's Idempotency-Key. `resumed`: the key was taken over
 * from an earlier request that never finished (its process died, or it lost its database
 * mid-way), so what that request wrote may exist without its answer having been stored. A
 * create that can find what it made by the key (an invoice, a withdrawal) returns that instead
 * of making another.
 */
export interface IdempotentRun {
  key: string;
  resumed: boolean;
}

/**
 * Runs `run` at most once per Idempotency-Key. Answers below 500 are kept and replayed
 * (with `Idempotent-Replayed: true`); other failures release the key so the client can retry,
 * except a lost database: the request may have written before it failed, so its claim is left
 * to go stale (IDEMPOTENCY_LOCK_MS) and the retry then resumes it. While `run` works, its claim
 * is refreshed every IDEMPOTENCY_HEARTBEAT_MS, so only a request that died is ever taken over.
 */
export async function withIdempotency(
  store: IdempotencyStore,
  scope: string,
  req: Request,
  res: Response,
  run: (idempotency?: IdempotentRun) => Promise<StoredReply>,
): Promise<StoredReply> {
  const key = req.header('idempotency-key');
  if (key === undefined) return run();
  if (!KEY_PATTERN.test(key)) {
    throw new ApiError('VALIDATION_ERROR', 'Idempotency-Key must be 1-255 printable ASCII characters', [
      { field: 'Idempotency-Key', message: 'must be 1-255 printable ASCII characters' },
    ]);
  }
  const claim = await store.claim(scope, key, fingerprintOf(req));
  switch (claim.kind) {
    case 'mismatch':
      throw new ApiError('IDEMPOTENCY_CONFLICT', 'This Idempotency-Key was already used with a different request');
    case 'in_progress':
      throw new ApiError('IDEMPOTENCY_IN_PROGRESS', 'A request with this Idempotency-Key is still being processed; retry shortly');
    case 'replay':
      res.setHeader('Idempotent-Replayed', 'true');
      return { status: claim.status, text: claim.text };
    case 'claimed':
      break;
  }
  // A beat that fails (the database away) is no matter: the next one, or the answer, follows.
  const heartbeat = setInterval(() => void store.touch(scope, key).catch(() => undefined), IDEMPOTENCY_HEARTBEAT_MS);
  heartbeat.unref();
  let result: StoredReply;
  try {
    result = await run({ key, resumed: claim.resumed });
  } catch (err) {
    clearInterval(heartbeat);
    if (err instanceof ApiError && err.status < 500) {
      await store.complete(scope, key, { status: err.status, text: JSON.stringify(errorPayload(err)) });
    } else if (!isDatabaseUnavailable(err)) {
      await store.release(scope, key);
    }
    throw err;
  }
  clearInterval(heartbeat);
  await store.complete(scope, key, result);
  return result;
}

/** Business refusals are replayed too, so a retried request gets the same verdict. */
function errorPayload(err: ApiError): unknown {
  return { __error: { code: err.code, message: err.message, details: err.details } };
}

export function replayedError(reply: StoredReply): ApiError | null {
  if (!reply.text.startsWith('{"__error"')) return null;
  const e = (JSON.parse(reply.text) as { __error?: { code: ApiError['code']; message: string; details?: ApiError['details'] } } | null)?.__error;
  return e ? new ApiError(e.code, e.message, e.details) : null;
}
