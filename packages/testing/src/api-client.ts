import { SIGNING_STYLES, signedHeaders, type SigningStyle } from '@pay/auth';

/** What a merchant's client holds: an API key and the merchant's HMAC secret. */
export interface Credentials {
  apiKey: string;
  hmacSecret: string;
}

/** An answer as the client saw it. `status` 0: none came (connection refused or cut, or out of time: `error` says which). */
export interface HttpAnswer {
  status: number;
  /** The JSON answered (any operation's, so untyped), or the text when it was not JSON. */
  body: any;
  headers: Headers;
  /** When it was sent (epoch ms), and how long until the end of the body. */
  sentAt: number;
  ms: number;
  error?: string;
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * When each request was last signed, by every client of this process: the same request sent
 * through two clients at once (both replicas of an API) must still carry two signatures, or
 * the second is a replay.
 */
const lastSigned = new Map<string, number>();

export interface ClientOptions {
  /** Each request's bound (default 15 s): a hang is an answer too (status 0, error `timeout`). */
  timeoutMs?: number;
  /**
   * Send again after a 503 (Redis or Postgres out of reach for a moment: the request was
   * refused before it did anything), at most this many times, after its Retry-After; signed
   * afresh each time. `stats.retried` counts them.
   */
  retryUnavailable?: number;
}

/**
 * A merchant's client of a service process over real HTTP. `base` may be a function, read at
 * every send, so a client follows a process replaced after a kill. `keyed` sends the API key
 * alone (a FormData body goes as multipart); `signed` also signs, in `style`, exactly the
 * bytes sent, afresh on every send: a signature is accepted once, so a retry of the same
 * request needs a timestamp of its own (a later second in the crypto style, a later
 * millisecond in v2's). Without credentials it is anonymous (registration, console sign-in).
 */
export function apiClient(base: string | (() => string), creds: Partial<Credentials> = {}, style: SigningStyle = 'v2', o: ClientOptions = {}) {
  const baseUrl = typeof base === 'string' ? () => base : base;
  const tick = SIGNING_STYLES[style].timestampUnit === 'seconds' ? 1000 : 1;
  const stats = { retried: 0 };

  async function sendOnce(method: Method, path: string, body: string | FormData | undefined, headers: Record<string, string>): Promise<HttpAnswer> {
    const started = Date.now();
    try {
      const res = await fetch(`${baseUrl()}${path}`, {
        method,
        headers: {
          ...(creds.apiKey ? { 'x-api-key': creds.apiKey } : {}),
          ...(typeof body === 'string' ? { 'content-type': 'application/json' } : {}),
          ...headers,
        },
        body,
        signal: AbortSignal.timeout(o.timeoutMs ?? 15_000),
      });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // not JSON: kept as text
      }
      return { status: res.status, body: parsed, headers: res.headers, sentAt: started, ms: Date.now() - started };
    } catch (err) {
      const e = err as Error & { cause?: { code?: string; message?: string } };
      const error = e.name === 'TimeoutError' ? 'timeout' : (e.cause?.code ?? e.cause?.message ?? e.message);
      return { status: 0, body: null, headers: new Headers(), sentAt: started, ms: Date.now() - started, error };
    }
  }

  async function send(attempt: () => Promise<HttpAnswer>): Promise<HttpAnswer> {
    for (let n = 0; ; n++) {
      const answer = await attempt();
      if (answer.status !== 503 || n >= (o.retryUnavailable ?? 0)) return answer;
      stats.retried++;
      const after = Number(answer.headers.get('retry-after'));
      await new Promise((r) => setTimeout(r, Math.min(after > 0 ? after : 1, 2) * 1000));
    }
  }

  return {
    stats,
    /** With the API key alone (or nothing, for an anonymous client). */
    keyed(method: Method, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<HttpAnswer> {
      const raw = body === undefined || body instanceof FormData ? body : JSON.stringify(body);
      return send(() => sendOnce(method, path, raw, headers));
    },
    /** With the API key and a fresh signature of exactly the bytes sent. */
    signed(method: Method, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<HttpAnswer> {
      if (!creds.hmacSecret) throw new Error('a signed request needs the merchant’s HMAC secret');
      const raw = body === undefined ? undefined : JSON.stringify(body);
      const request = `${style} ${creds.hmacSecret} ${method} ${path} ${raw ?? ''}`;
      return send(() => {
        const now = Math.max(Date.now(), (lastSigned.get(request) ?? 0) + tick);
        lastSigned.set(request, now);
        const signature = signedHeaders(style, creds.hmacSecret!, { method, path: path.split('?')[0]!, body: raw ?? '', now });
        return sendOnce(method, path, raw, { ...signature, ...headers });
      });
    },
  };
}

export type ApiClient = ReturnType<typeof apiClient>;

/** Throws with the answer unless its status is the expected one; returns the body. */
export function expectStatus(answer: HttpAnswer, status: number, what: string): any {
  if (answer.status !== status) throw new Error(`${what}: expected ${status}, got ${answer.status || answer.error} ${JSON.stringify(answer.body)}`);
  return answer.body;
}

/** No answer yet: the process is away (status 0), the service says so (503), or the key's first request still runs (409). */
export function asksForRetry(a: HttpAnswer): boolean {
  return a.status === 0 || a.status === 503 || (a.status === 409 && a.body?.error?.code === 'IDEMPOTENCY_IN_PROGRESS');
}

/**
 * Sends until the answer is final, as a careful client does with an Idempotency-Key: `send`
 * must sign afresh each time. Waits out Retry-After (else 250 ms) between tries; after
 * `deadlineMs` returns the last answer, whatever it is. Every answer is kept, in order.
 */
export async function untilAnswered(send: () => Promise<HttpAnswer>, deadlineMs = 90_000): Promise<{ answer: HttpAnswer; attempts: HttpAnswer[] }> {
  const attempts: HttpAnswer[] = [];
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const answer = await send();
    attempts.push(answer);
    if (!asksForRetry(answer) || Date.now() > deadline) return { answer, attempts };
    const retryAfter = Number(answer.headers.get('retry-after'));
    await new Promise((r) => setTimeout(r, retryAfter > 0 ? retryAfter * 1000 : 250));
  }
}

/**
 * `n` requests at once, each retried until answered (`send(i)` signs afresh and sends the i-th
 * request's same body and Idempotency-Key every time): the final answers, every attempt, the
 * final answers that made something (201) or were refused (422), and their counts.
 */
export async function raceRequests(n: number, send: (i: number) => Promise<HttpAnswer>) {
  const results = await Promise.all(Array.from({ length: n }, (_, i) => untilAnswered(() => send(i))));
  const answers = results.map((r) => r.answer);
  const attempts = results.flatMap((r) => r.attempts);
  const created = answers.filter((a) => a.status === 201);
  const refused = answers.filter((a) => a.status === 422);
  return { answers, attempts, created, refused, counts: { ...tally(attempts), created: created.length, refused: refused.length } };
}

/** Answers no client can act on: a 5xx other than the retryable 503. Shown with their bodies. */
export function serverFailures(attempts: HttpAnswer[]): { status: number; body: unknown }[] {
  return attempts.filter((a) => a.status >= 500 && a.status !== 503).map((a) => ({ status: a.status, body: a.body }));
}

/** A scenario's answers counted for artefacts/chaos.json. */
export function tally(attempts: HttpAnswer[]) {
  return {
    requests: attempts.length,
    /** No answer: the connection was refused or cut (a killed process), or the request hung. */
    cut: attempts.filter((a) => a.status === 0 && a.error !== 'timeout').length,
    hangs: attempts.filter((a) => a.error === 'timeout').length,
    inProgress409: attempts.filter((a) => a.status === 409 && a.body?.error?.code === 'IDEMPOTENCY_IN_PROGRESS').length,
    unavailable503: attempts.filter((a) => a.status === 503).length,
    fiveXX: serverFailures(attempts).length,
    maxMs: Math.max(0, ...attempts.map((a) => a.ms)),
  };
}

/**
 * Signs in to the invoicing console at `invoicingUrl` with `apiKey` and creates a webhook
 * there, as the console page does (session cookie and CSRF token); returns its id.
 */
export async function consoleWebhook(invoicingUrl: string, apiKey: string, url: string, events: string[]): Promise<string> {
  const anonymous = apiClient(invoicingUrl);
  const session = await anonymous.keyed('POST', '/console/api/session', { apiKey });
  const { csrfToken } = expectStatus(session, 200, 'console sign-in');
  const cookie = session.headers.get('set-cookie')!.split(';')[0]!;
  const created = await anonymous.keyed('POST', '/console/api/webhooks', { url, events }, { cookie, 'x-csrf-token': csrfToken });
  return expectStatus(created, 201, 'console webhook').id;
}
