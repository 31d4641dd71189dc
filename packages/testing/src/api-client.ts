import { signedHeaders, type SigningStyle } from '@pay/auth';

/** An answer of a spawned service: status, parsed JSON body (or the text), headers. */
export interface ApiAnswer<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export interface ClientOptions {
  apiKey?: string;
  hmacSecret?: string;
  /** Sign every request in this style (invoicing v2 signs every operation); otherwise only when asked. */
  sign?: SigningStyle;
  /**
   * Send again, signed afresh, after a 503 (Redis or Postgres out of reach for a moment: the
   * request was refused before it did anything), at most this many times, after Retry-After.
   */
  retryUnavailable?: number;
}

export interface RequestOptions {
  /** Sign this request in the given style (crypto signs only some operations). */
  sign?: SigningStyle;
  headers?: Record<string, string>;
}

// v2 timestamps are milliseconds: each request a millisecond after the last, so two requests
// with the same body never carry the same signature (a replay). Crypto timestamps are whole
// seconds: there, requests signed within one second need bodies that differ.
let lastMs = 0;
const nextTimestamp = () => (lastMs = Math.max(Date.now(), lastMs + 1));

/**
 * A merchant's client of a service running as its own process (spawnService): JSON over
 * fetch, the API key on every request, signed as the service asks (see README "Signing
 * requests"), the body serialised once so the signature covers exactly the bytes sent. A
 * FormData body goes as multipart (never signed: only key-only routes take uploads).
 */
export function apiClient(baseUrl: string, opts: ClientOptions = {}) {
  const stats = { retried: 0 };
  const send = async <T = any>(method: string, path: string, body?: unknown, o: RequestOptions = {}): Promise<ApiAnswer<T>> => {
    for (let attempt = 0; ; attempt++) {
      const answer = await sendOnce<T>(method, path, body, o);
      if (answer.status !== 503 || attempt >= (opts.retryUnavailable ?? 0)) return answer;
      stats.retried++;
      const after = Number(answer.headers.get('retry-after') ?? '1');
      await new Promise((r) => setTimeout(r, Math.min(Number.isFinite(after) ? after : 1, 2) * 1000));
    }
  };
  const sendOnce = async <T = any>(method: string, path: string, body: unknown, o: RequestOptions): Promise<ApiAnswer<T>> => {
    const headers: Record<string, string> = { ...(opts.apiKey ? { 'x-api-key': opts.apiKey } : {}) };
    let raw: string | FormData | undefined;
    if (body instanceof FormData) raw = body;
    else if (body !== undefined) {
      raw = JSON.stringify(body);
      headers['content-type'] = 'application/json';
    }
    const style = o.sign ?? opts.sign;
    if (style) {
      if (!opts.hmacSecret) throw new Error('a signed request needs the merchant’s HMAC secret');
      if (raw instanceof FormData) throw new Error('multipart requests are not signed');
      Object.assign(headers, signedHeaders(style, opts.hmacSecret, { method, path: path.split('?')[0]!, body: raw ?? '', now: nextTimestamp() }));
    }
    const res = await fetch(`${baseUrl}${path}`, { method, headers: { ...headers, ...o.headers }, body: raw });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, body: parsed as T, headers: res.headers };
  };
  return {
    baseUrl,
    /** Requests sent again after a 503. */
    stats,
    request: send,
    get: <T = any>(path: string, o?: RequestOptions) => send<T>('GET', path, undefined, o),
    post: <T = any>(path: string, body?: unknown, o?: RequestOptions) => send<T>('POST', path, body, o),
    put: <T = any>(path: string, body?: unknown, o?: RequestOptions) => send<T>('PUT', path, body, o),
    delete: <T = any>(path: string, o?: RequestOptions) => send<T>('DELETE', path, undefined, o),
  };
}

export type ApiClient = ReturnType<typeof apiClient>;

/** Throws with the answer unless its status is the expected one; returns the body. */
export function expectStatus<T>(answer: ApiAnswer<T>, status: number, what: string): T {
  if (answer.status !== status) throw new Error(`${what}: expected ${status}, got ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body;
}

export interface RegisteredMerchant {
  merchantId: string;
  /** The live key registration gave. */
  liveKey: string;
  /** A test-mode key made with it (sandbox work). */
  testKey: string;
  /** The merchant's HMAC secret, for both keys. */
  hmacSecret: string;
}

/**
 * Registers a merchant through a running crypto service (the public registration, as a new
 * merchant does) and makes it a test key: for tests whose services run on a database of their
 * own (startThrowawayPostgres), where no fixture has made one.
 */
export async function registerMerchantOver(cryptoUrl: string, companyName = 'Acme Ltd'): Promise<RegisteredMerchant> {
  const anonymous = apiClient(cryptoUrl);
  const email = `m-${Date.now()}-${Math.random().toString(36).slice(2)}@example.test`;
  const reg = expectStatus(await anonymous.post('/api/v1/merchants/register', { companyName, email, address: '1 Main St' }), 201, 'register').data;
  const live = apiClient(cryptoUrl, { apiKey: reg.apiKey.apiKey });
  const key = expectStatus(await live.post('/api/v1/api-keys', { name: 'tests', isTestKey: true }), 201, 'test key').data;
  return { merchantId: reg.merchantId, liveKey: reg.apiKey.apiKey, testKey: key.apiKey, hmacSecret: reg.apiKey.hmacSecret };
}
