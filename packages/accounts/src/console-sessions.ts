import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { ApiError } from '@pay/schemas';
import { rateLimit, requireApiKey, type AuthContext, type Owner, type SecretBox } from '@pay/auth';
import type { Clock, Logger, RedisClient } from '@pay/runtime';
import type { Queries } from '@pay/db';
import { accountsKeyResolver } from './key-resolver';
import { deleteExpiredSessions, deleteSession, insertConsoleSession, sessionByTokenHash, setSessionExpiry } from './store/console-sessions';

/** The console's session cookie; scoped to /console, so no other page of the service receives it. */
export const CONSOLE_SESSION_COOKIE = 'console_session';
export const CONSOLE_PATH = '/console';

export interface ConsoleSessionPolicy {
  /** A session unused this long ends. */
  idleMs: number;
  /** No session lives longer than this, used or not. */
  absoluteMs: number;
}

export const DEFAULT_CONSOLE_SESSION_POLICY: ConsoleSessionPolicy = { idleMs: 60 * 60 * 1000, absoluteMs: 12 * 60 * 60 * 1000 };

/** Expiry is moved forward at most this often, so reading pages is not a write per request. */
const SLIDE_STEP_MS = 60_000;

const hashToken = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

export interface ConsoleSession {
  auth: AuthContext;
  csrfToken: string;
  expiresAt: Date;
}

/**
 * Signs in with an API key, checked by the very middleware of the merchant APIs
 * (`requireApiKey` over `accountsKeyResolver`): a revoked, unknown or malformed key, or a
 * suspended merchant, is refused here exactly as on the API. The session acts in the key's
 * mode: a test key's session sees test webhooks only. Returns the cookie value (shown once,
 * stored hashed) and the CSRF token.
 */
export async function signInToConsole(
  db: Queries,
  box: SecretBox,
  apiKey: string,
  now: Date,
  policy: ConsoleSessionPolicy = DEFAULT_CONSOLE_SESSION_POLICY,
): Promise<ConsoleSession & { token: string }> {
  const auth = await checkApiKey(db, box, apiKey);
  const token = randomBytes(32).toString('base64url');
  const csrfToken = randomBytes(32).toString('base64url');
  const expiresAt = new Date(now.getTime() + Math.min(policy.idleMs, policy.absoluteMs));
  await insertConsoleSession(db, { tokenHash: hashToken(token), merchantId: auth.merchantId, keyId: auth.keyId, csrfToken, createdAt: now, expiresAt });
  return { token, auth, csrfToken, expiresAt };
}

/**
 * `requireApiKey` reads the key from `X-Api-Key`; the console takes it from a form, so it is
 * handed to the same middleware on a request of its own rather than checked a second way.
 */
function checkApiKey(db: Queries, box: SecretBox, apiKey: string): Promise<AuthContext> {
  const check = requireApiKey(accountsKeyResolver(db, box));
  const probe = { get: (name: string) => (name.toLowerCase() === 'x-api-key' ? apiKey : undefined) } as unknown as Request;
  return new Promise((resolve, reject) => {
    void check(probe, {} as Response, (err?: unknown) => (err ? reject(err) : resolve(probe.auth!)));
  });
}

/**
 * The live session for a cookie value, or null: unknown, expired (idle or absolute), its key
 * revoked since, or its merchant suspended. Use moves the idle expiry forward.
 */
export async function consoleSessionOf(db: Queries, token: string, now: Date, policy: ConsoleSessionPolicy = DEFAULT_CONSOLE_SESSION_POLICY): Promise<ConsoleSession | null> {
  const tokenHash = hashToken(token);
  const s = await sessionByTokenHash(db, tokenHash);
  if (!s) return null;
  if (s.expiresAt <= now || s.keyRevokedAt || s.merchantStatus !== 'Active') {
    await deleteSession(db, tokenHash);
    return null;
  }
  const slid = new Date(Math.min(now.getTime() + policy.idleMs, s.createdAt.getTime() + policy.absoluteMs));
  let expiresAt = s.expiresAt;
  if (slid.getTime() - s.expiresAt.getTime() >= SLIDE_STEP_MS) {
    await setSessionExpiry(db, tokenHash, slid);
    expiresAt = slid;
  }
  return { auth: { keyId: s.keyId, merchantId: s.merchantId, isTestMode: s.keyIsTest }, csrfToken: s.csrfToken, expiresAt };
}

/** The data a console page or call looks at: live money, or test mode's. */
export type ConsoleMode = 'live' | 'test';

/**
 * Whose data a console request shows: the session's merchant in the session's mode, or in the
 * mode it asks for (`?mode=`). A session signed in with a live key may switch to test data, as
 * Stripe's dashboard toggles test mode: test data moves no money, and seeing it needs nothing a
 * live key does not already open. A test key's session sees test data only: asking it for live
 * is refused (403), so a test key, handed to a developer or left in a test config, can never
 * reveal live payments, nor refund them.
 */
export function consoleOwnerFor(auth: AuthContext, mode: ConsoleMode | undefined): Owner {
  if (mode === 'live' && auth.isTestMode) {
    throw new ApiError('FORBIDDEN', 'This console session was signed in with a test key: it shows test data only. Sign in with a live key (sk_live_…) to see live payments');
  }
  return { merchantId: auth.merchantId, isTest: mode === undefined ? auth.isTestMode : mode === 'test' };
}

/**
 * The header in which the console's server presents a signed-in merchant's session to
 * another service's merchant API (crypto's balances, transactions, withdrawals), instead of
 * an API key it does not have: the key is stored only as its hash.
 */
export const CONSOLE_SESSION_HEADER = 'x-console-session';

/**
 * Authenticates a merchant API request by a console session (`X-Console-Session`) where one is
 * sent, and otherwise by `byApiKey` (`X-Api-Key`). A session only reads: any method but GET or
 * HEAD is refused, so it can never create a key, a withdrawal or a sandbox transfer, whatever
 * the route's auth level; and it is never a signature, so `signed` routes (which use
 * `requireApiKey` alone) refuse it. The session is checked as the console checks it, on every
 * request (expired, signed out, its key revoked or its merchant suspended: 401), and acts in its
 * key's merchant and mode.
 */
export function apiKeyOrConsoleSession(byApiKey: RequestHandler, o: { db: Queries; clock: Clock; policy?: ConsoleSessionPolicy }): RequestHandler {
  return async (req, res, next) => {
    const token = req.get(CONSOLE_SESSION_HEADER);
    if (token === undefined) return byApiKey(req, res, next);
    try {
      if (!SAFE_METHODS.has(req.method)) throw new ApiError('FORBIDDEN', `${CONSOLE_SESSION_HEADER} only reads (GET): send X-Api-Key, and a signature where the operation needs one`);
      const session = token ? await consoleSessionOf(o.db, token, o.clock.now(), o.policy) : null;
      if (!session) throw new ApiError('UNAUTHORIZED', 'Console session is not valid, or it expired: sign in to the console again');
      req.auth = session.auth;
      next();
    } catch (err) {
      next(err);
    }
  };
}

export async function signOutOfConsole(db: Queries, token: string): Promise<void> {
  await deleteSession(db, hashToken(token));
}

/** Deletes expired sessions (housekeeping). */
export function pruneConsoleSessions(db: Queries, now: Date): Promise<number> {
  return deleteExpiredSessions(db, now);
}

export function sessionCookieOf(req: Request): string | null {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === CONSOLE_SESSION_COOKIE) return decodeURIComponent(part.slice(eq + 1).trim()) || null;
  }
  return null;
}

/**
 * HttpOnly (no script reads it), SameSite=Strict (no other site's page sends it), scoped to
 * /console, Secure when the console is served over TLS.
 */
export function setSessionCookie(res: Response, token: string, expiresAt: Date, secure: boolean): void {
  res.cookie(CONSOLE_SESSION_COOKIE, token, { httpOnly: true, sameSite: 'strict', secure, path: CONSOLE_PATH, expires: expiresAt });
}

export function clearSessionCookie(res: Response, secure: boolean): void {
  res.clearCookie(CONSOLE_SESSION_COOKIE, { httpOnly: true, sameSite: 'strict', secure, path: CONSOLE_PATH });
}

/** The session of a request that passed a console guard. */
export function consoleSessionFrom(res: Response): ConsoleSession {
  const s = res.locals.consoleSession as ConsoleSession | undefined;
  if (!s) throw new Error('consoleSessionFrom: the route has no console session guard');
  return s;
}

/**
 * Refuses a sign-in sent by another site (login CSRF: a page elsewhere posting its own key so
 * that the victim's browser works in the attacker's account). Browsers name the sending page's
 * origin in `Origin` on every POST, and modern ones say `Sec-Fetch-Site`; a sign-in must come
 * from the console's own origin (`PUBLIC_URL`). A request with neither header is not a
 * browser's (curl, the SDK) and cannot be forged cross-site, so it passes. `Origin: null`
 * (a sandboxed frame, a privacy redirect) is refused: it proves nothing.
 */
export function assertSameOriginSignIn(req: Request, publicUrl: string): void {
  const origin = req.get('origin');
  const site = req.get('sec-fetch-site');
  const own = new URL(publicUrl).origin;
  // The console's own origin is PUBLIC_URL's, or the one the browser addressed (its Host): a
  // page of another site cannot send an Origin naming our host, and a stack reached as
  // localhost, or on a port PUBLIC_URL does not name, still signs in.
  const addressed = (o: string) => {
    try {
      return new URL(o).host === req.get('host');
    } catch {
      return false;
    }
  };
  const crossSite = origin !== undefined ? origin !== own && !addressed(origin) : site !== undefined && site !== 'same-origin' && site !== 'none';
  if (crossSite) {
    throw new ApiError('FORBIDDEN', `Sign-in refused: it was sent by another site (${origin ?? `Sec-Fetch-Site: ${site}`}); sign in on ${own}/console/sign-in`);
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

function csrfMatches(sent: string | undefined, expected: string): boolean {
  if (!sent) return false;
  const a = Buffer.from(sent);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export interface ConsoleGuardOptions {
  /** The service's client: the sessions are read on it (`accounts` schema). */
  db: Queries;
  redis: RedisClient;
  logger: Logger;
  clock: Clock;
  perKeyPerSecond: number;
  policy?: ConsoleSessionPolicy;
}

/**
 * Guards for the console's `session` auth level:
 * - `api`: a signed-in session, else 401; every change (POST, PATCH, DELETE) must carry the
 *   session's `X-CSRF-Token`, else 403. Rate limited per API key like the merchant APIs.
 * - `page`: the same session for pages; without one, a redirect to the sign-in page.
 */
export function consoleGuards(o: ConsoleGuardOptions): { api: RequestHandler[]; page: RequestHandler[] } {
  const policy = o.policy ?? DEFAULT_CONSOLE_SESSION_POLICY;
  const limit = rateLimit({
    redis: o.redis,
    rule: { prefix: 'rl:console:key', limit: o.perKeyPerSecond, windowMs: 1000 },
    identify: (req) => req.auth?.keyId ?? null,
    onError: (err) => o.logger.warn({ err }, 'rate limiter unavailable; letting requests through'),
  });
  const load = (onMissing: (req: Request, res: Response) => void): RequestHandler => async (req, res, next) => {
    try {
      const token = sessionCookieOf(req);
      const session = token ? await consoleSessionOf(o.db, token, o.clock.now(), policy) : null;
      if (!session) return onMissing(req, res);
      if (!SAFE_METHODS.has(req.method) && !csrfMatches(req.get('x-csrf-token'), session.csrfToken)) {
        throw new ApiError('FORBIDDEN', 'Missing or wrong X-CSRF-Token header: send the csrfToken the sign-in returned');
      }
      req.auth = session.auth;
      res.locals.consoleSession = session;
      next();
    } catch (err) {
      next(err);
    }
  };
  return {
    api: [
      load((_req, _res) => {
        throw new ApiError('UNAUTHORIZED', 'Not signed in to the console, or the session expired: POST /console/api/session with an API key');
      }),
      limit,
    ],
    page: [load((_req, res) => res.redirect(303, `${CONSOLE_PATH}/sign-in`)), limit],
  };
}
