/**
 * @pay/client: the merchant SDK for both base URLs. Every operation of invoicing v2, invoicing
 * v1 and crypto is a typed method named by its operationId (`client.invoicing.createInvoice`,
 * `client.crypto.createWithdrawal`), its types generated from the committed OpenAPI documents
 * (src/generated/api.ts, see generate.mjs). The client does the protocol:
 * - signs each request in its base URL's style (invoicing v2: hex HMAC, Unix milliseconds;
 *   crypto: Base64 HMAC, Unix seconds), afresh on every attempt;
 * - gives every create an Idempotency-Key (the caller's, or a random one), the same on each retry;
 * - retries 503 and 429 after Retry-After, and a request that got no answer when repeating it
 *   is safe (a GET, or a create with its Idempotency-Key), with a bounded backoff; never another 4xx;
 * - throws PayApiError with the answer's code, message, details, status and X-Request-Id;
 * - pages list operations as async iterators (`client.invoicing.each('listInvoices')`);
 * - bounds each attempt (timeoutMs) and stops on the caller's AbortSignal.
 * Only Node's builtins are used: it is installed alone.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { CRYPTO_OPERATIONS, INVOICING_OPERATIONS, type CryptoApi, type CryptoOperationTable, type InvoicingApi, type InvoicingOperationTable, type OperationSpec } from './generated/api';

export * from './generated/api';

// ---------------------------------------------------------------------------------------------
// Types of an operation's input and answer, from openapi-typescript's `operations[id]`.

type Never<T> = [T] extends [never] ? true : [T] extends [undefined] ? true : false;
type PathOf<O> = O extends { parameters: { path: infer P } } ? P : never;
type QueryOf<O> = O extends { parameters: { query?: infer Q } } ? Exclude<Q, undefined> : never;
type BodyOf<O> = O extends { requestBody: { content: infer C } }
  ? 'multipart/form-data' extends keyof C
    ? FormData
    : C extends { 'application/json': infer J }
      ? J
      : never
  : O extends { requestBody?: { content: infer C } }
    ? C extends { 'application/json': infer J }
      ? J | undefined
      : never
    : never;

/** The answer of a download (a receipt's file, a batch export): its bytes and type. */
export interface Download {
  data: ArrayBuffer;
  contentType: string;
  /** The file name the service suggests (Content-Disposition), if any. */
  fileName: string | undefined;
}

type SuccessStatus = 200 | 201;
type AnswerOf<R> = R extends { content: { 'application/json': infer J } } ? J : Download;
/** What a successful call resolves to: the answer's JSON as the document declares it (a Download for a file). */
export type ResultOf<O> = O extends { responses: infer R } ? { [S in keyof R & SuccessStatus]: AnswerOf<R[S]> }[keyof R & SuccessStatus] : never;

/** Per call: an Idempotency-Key of the caller's (a create gets a random one otherwise), a timeout, a signal. */
export interface CallOptions {
  /** Sent on operations that take one; kept across the client's own retries. Give your own to make a retry of yours safe too. */
  idempotencyKey?: string;
  /** Abandons the call (waits between retries included); the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Bound on each attempt, in ms (default: the client's timeoutMs). */
  timeoutMs?: number;
}

type Optional<T> = {} extends T ? true : false;
/** What a call takes: `path` parameters, `query`, `body`, as the operation declares them, and CallOptions. */
export type InputOf<O> = (Never<PathOf<O>> extends true ? {} : { path: PathOf<O> }) &
  (Never<QueryOf<O>> extends true ? {} : Optional<QueryOf<O>> extends true ? { query?: QueryOf<O> } : { query: QueryOf<O> }) &
  (Never<BodyOf<O>> extends true ? {} : undefined extends BodyOf<O> ? { body?: Exclude<BodyOf<O>, undefined> } : { body: BodyOf<O> }) &
  CallOptions;

type ArgsOf<O> = Optional<InputOf<O>> extends true ? [input?: InputOf<O>] : [input: InputOf<O>];

/** One method per operation, named by its operationId. */
export type Methods<Ops, Ids extends keyof Ops> = { readonly [K in Ids]: (...args: ArgsOf<Ops[K]>) => Promise<ResultOf<Ops[K]>> };

/** The element type of a list operation's answer: v2's `data: [...]`, crypto's `data: { items: [...] }`. */
export type ItemOf<O> = ResultOf<O> extends { data: readonly (infer T)[] } ? T : ResultOf<O> extends { data: { items: readonly (infer T)[] } } ? T : never;
/** The list operations among Ids: those `each` pages through. */
export type ListIds<Ops, Ids extends keyof Ops> = { [K in Ids]: Never<ItemOf<Ops[K]>> extends true ? never : K }[Ids];

export interface Pager<Ops, Ids extends keyof Ops> {
  /**
   * Every item of a list operation, page after page (v2 by `offset`, crypto by `page`), fetched
   * as the loop asks for them. `query` sets the filters and the page size (`limit`, `pageSize`).
   */
  each<K extends ListIds<Ops, Ids>>(id: K, ...args: ArgsOf<Ops[K]>): AsyncIterableIterator<ItemOf<Ops[K]>>;
}

export type InvoicingOperationId = keyof InvoicingOperationTable;
export type CryptoOperationId = keyof CryptoOperationTable;
/** `client.invoicing`: invoicing v2 (signed) and v1 (`v1…`, key only). */
export type InvoicingClient = Methods<InvoicingApi.operations, InvoicingOperationId> & Pager<InvoicingApi.operations, InvoicingOperationId>;
/** `client.crypto`: the crypto API (HMAC-signed where it asks for it). */
export type CryptoClient = Methods<CryptoApi.operations, CryptoOperationId> & Pager<CryptoApi.operations, CryptoOperationId>;

// ---------------------------------------------------------------------------------------------
// Errors.

export interface PayErrorDetail {
  field: string;
  message: string;
  [key: string]: unknown;
}

/**
 * An operation refused (any non-2xx answer), or no answer at all (status 0: `NETWORK_ERROR`
 * when the connection failed, `TIMEOUT` when an attempt outlasted timeoutMs), after the
 * client's retries. `code` is the API's error code (`VALIDATION_ERROR`, `REPLAYED_REQUEST`, …).
 */
export class PayApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: PayErrorDetail[];
  /** The answer's X-Request-Id: quote it to support. */
  readonly requestId: string | undefined;
  /** The answer's Retry-After, in seconds, when it had one. */
  readonly retryAfter: number | undefined;

  constructor(init: { status: number; code: string; message: string; details?: PayErrorDetail[]; requestId?: string; retryAfter?: number; cause?: unknown }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'PayApiError';
    this.status = init.status;
    this.code = init.code;
    this.details = init.details ?? [];
    this.requestId = init.requestId;
    this.retryAfter = init.retryAfter;
  }
}

// ---------------------------------------------------------------------------------------------
// Signing: {timestamp}.{METHOD}.{path}{rawBody}, HMAC-SHA256 with the merchant's HMAC secret.

export type SigningStyle = 'invoicing' | 'crypto';

/** The headers of a signed request at `nowMs`: invoicing v2 in hex and milliseconds, crypto in Base64 and seconds. */
export function signRequest(style: SigningStyle, hmacSecret: string, req: { method: string; path: string; body?: Uint8Array | string; nowMs: number }): Record<string, string> {
  const timestamp = String(style === 'crypto' ? Math.floor(req.nowMs / 1000) : Math.floor(req.nowMs));
  const query = req.path.indexOf('?');
  const path = query === -1 ? req.path : req.path.slice(0, query);
  const mac = createHmac('sha256', hmacSecret).update(`${timestamp}.${req.method.toUpperCase()}.${path}`);
  if (req.body !== undefined) mac.update(req.body);
  return style === 'crypto'
    ? { 'X-Timestamp': timestamp, 'X-Signature': mac.digest('base64') }
    : { 'x-timestamp': timestamp, 'x-signature': mac.digest('hex') };
}

// ---------------------------------------------------------------------------------------------
// The client.

export interface PayClientOptions {
  /** The API key (a test key for test mode). Without one, only public operations (registerMerchant) can be called. */
  apiKey?: string;
  /** The merchant's HMAC secret, for the signed operations (every invoicing v2 one, crypto's withdrawals and secrets). */
  hmacSecret?: string;
  /** Invoicing's base URL, e.g. http://127.0.0.1:3001. */
  invoicingUrl?: string;
  /** Crypto's base URL, e.g. http://127.0.0.1:3002. */
  cryptoUrl?: string;
  /** Bound on each attempt, in ms (default 30000). */
  timeoutMs?: number;
  /** Retries after the first attempt (default 3). */
  maxRetries?: number;
  /** Longest wait before a retry, in ms, whatever Retry-After asks (default 30000): a longer one fails the call instead. */
  maxRetryDelayMs?: number;
  /** The fetch to use (default: the global one), e.g. to go through a proxy or to record requests. */
  fetch?: typeof fetch;
}

interface Attempt {
  url: string;
  init: RequestInit & { headers: Record<string, string> };
}

const RETRY_STATUSES = new Set([429, 503]);
const BASE_DELAY_MS = 500;

export class PayClient {
  readonly invoicing: InvoicingClient;
  readonly crypto: CryptoClient;
  private readonly options: PayClientOptions;
  /** When each signed request (style, method, path, body) was last signed: a retry within the same second (crypto) must not repeat a signature, which the service refuses as a replay. */
  private readonly lastSigned = new Map<string, number>();

  constructor(options: PayClientOptions) {
    this.options = { ...options };
    this.invoicing = this.service('invoicing', INVOICING_OPERATIONS as unknown as Record<string, OperationSpec>) as unknown as InvoicingClient;
    this.crypto = this.service('crypto', CRYPTO_OPERATIONS as unknown as Record<string, OperationSpec>) as unknown as CryptoClient;
  }

  private service(style: SigningStyle, table: Record<string, OperationSpec>): Record<string, unknown> {
    const methods: Record<string, unknown> = {};
    for (const [id, spec] of Object.entries(table)) methods[id] = (input?: RawInput) => this.call(style, id, spec, input ?? {});
    methods.each = (id: string, input?: RawInput) => {
      const spec = table[id];
      if (!spec) throw new TypeError(`${style} has no operation "${id}"`);
      return this.pages(style, id, spec, input ?? {});
    };
    return methods;
  }

  private async *pages(style: SigningStyle, id: string, spec: OperationSpec, input: RawInput): AsyncIterableIterator<unknown> {
    const query: Record<string, unknown> = { ...(input.query ?? {}) };
    for (;;) {
      const answer = (await this.call(style, id, spec, { ...input, query })) as { data?: unknown; pagination?: { total: number; limit: number; offset: number } };
      const data = answer.data as unknown[] | { items: unknown[]; totalCount: number; page: number; pageSize: number } | undefined;
      if (Array.isArray(data) && answer.pagination) {
        // v2: { data: [...], pagination: { total, limit, offset } }
        yield* data;
        const next = answer.pagination.offset + answer.pagination.limit;
        if (data.length === 0 || next >= answer.pagination.total) return;
        query.offset = next;
        query.limit = answer.pagination.limit;
      } else if (data && !Array.isArray(data) && Array.isArray(data.items)) {
        // crypto: { data: { items, totalCount, page, pageSize } }
        yield* data.items;
        if (data.items.length === 0 || data.page * data.pageSize >= data.totalCount) return;
        query.page = data.page + 1;
        query.pageSize = data.pageSize;
      } else {
        throw new TypeError(`${id} is not a list operation: its answer has no pagination`);
      }
    }
  }

  private baseUrl(style: SigningStyle, id: string): string {
    const url = style === 'invoicing' ? this.options.invoicingUrl : this.options.cryptoUrl;
    if (!url) throw new TypeError(`${id} is an operation of the ${style} API: give PayClient its ${style}Url`);
    return url.replace(/\/+$/, '');
  }

  private async call(style: SigningStyle, id: string, spec: OperationSpec, input: RawInput): Promise<unknown> {
    const base = this.baseUrl(style, id);
    const path = pathFor(id, spec.path, input.path) + queryString(input.query);
    const headers: Record<string, string> = { accept: 'application/json' };
    if (spec.auth !== 'none') {
      if (!this.options.apiKey) throw new TypeError(`${id} needs an API key: give PayClient its apiKey`);
      headers['x-api-key'] = this.options.apiKey;
    }
    if (spec.auth === 'signed' && !this.options.hmacSecret) throw new TypeError(`${id} is signed: give PayClient the merchant's hmacSecret`);
    // One key for the whole call, so a retry after a lost answer cannot create twice.
    const idempotencyKey = spec.idempotent ? (input.idempotencyKey ?? randomUUID()) : undefined;
    if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
    let body: Uint8Array | undefined;
    if (input.body instanceof FormData) {
      // Serialised here, not by fetch, so the signature covers the exact bytes sent.
      const encoded = new Request('http://localhost/', { method: 'POST', body: input.body });
      body = new Uint8Array(await encoded.arrayBuffer());
      headers['content-type'] = encoded.headers.get('content-type')!;
    } else if (input.body !== undefined) {
      body = new TextEncoder().encode(JSON.stringify(input.body));
      headers['content-type'] = 'application/json';
    }
    // Repeating the request is safe when it changes nothing, or when the key makes it happen once.
    const repeatable = spec.method === 'get' || idempotencyKey !== undefined;
    const attempt = (): Attempt => {
      const signed = spec.auth === 'signed' ? this.sign(style, spec.method, path, body) : {};
      return { url: base + path, init: { method: spec.method.toUpperCase(), headers: { ...headers, ...signed }, body } };
    };
    const { res, data } = await this.send(attempt, repeatable, input);
    if (spec.download) {
      const disposition = /filename="?([^";]+)"?/.exec(res.headers.get('content-disposition') ?? '');
      return { data, contentType: res.headers.get('content-type') ?? '', fileName: disposition?.[1] } satisfies Download;
    }
    const text = new TextDecoder().decode(data);
    return text === '' ? {} : JSON.parse(text);
  }

  private sign(style: SigningStyle, method: string, path: string, body: Uint8Array | undefined): Record<string, string> {
    const tick = style === 'crypto' ? 1000 : 1;
    // Keyed by what the signature covers: the path without its query (signRequest), so calls
    // that differ only in their query (pages of one list, sent at once) never share a timestamp,
    // which would give them one signature and the second a replay refusal.
    const signedPath = path.split('?', 1)[0];
    const key = `${style} ${method} ${signedPath} ${body ? createHmac('sha256', 'k').update(body).digest('base64') : ''}`;
    const now = Date.now();
    const last = this.lastSigned.get(key);
    // Within the same timestamp unit, the next one: a timestamp a second ahead is well inside the 300 s window.
    const at = last !== undefined && Math.floor(now / tick) <= Math.floor(last / tick) ? (Math.floor(last / tick) + 1) * tick : now;
    this.lastSigned.set(key, at);
    if (this.lastSigned.size > 1000) {
      for (const [k, t] of this.lastSigned) if (t < now - 5000) this.lastSigned.delete(k);
    }
    return signRequest(style, this.options.hmacSecret!, { method, path, body, nowMs: at });
  }

  /** Sends until an answer is final; the timeout covers each attempt's whole answer, body included. */
  private async send(attempt: () => Attempt, repeatable: boolean, call: CallOptions): Promise<{ res: Response; data: ArrayBuffer }> {
    const fetchFn = this.options.fetch ?? fetch;
    const maxRetries = this.options.maxRetries ?? 3;
    const maxDelay = this.options.maxRetryDelayMs ?? 30_000;
    const timeoutMs = call.timeoutMs ?? this.options.timeoutMs ?? 30_000;
    for (let n = 0; ; n++) {
      call.signal?.throwIfAborted();
      const { url, init } = attempt();
      const { signal, done } = attemptSignal(call.signal, timeoutMs);
      let res: Response;
      let data: ArrayBuffer;
      try {
        res = await fetchFn(url, { ...init, signal });
        data = await res.arrayBuffer();
      } catch (err) {
        done();
        if (call.signal?.aborted) throw call.signal.reason;
        const timedOut = signal.aborted;
        const error = new PayApiError({
          status: 0,
          code: timedOut ? 'TIMEOUT' : 'NETWORK_ERROR',
          message: timedOut ? `${init.method} ${url}: no answer within ${timeoutMs} ms` : `${init.method} ${url}: ${describe(err)}`,
          cause: err,
        });
        if (!repeatable || n >= maxRetries) throw error;
        await wait(backoff(n), call.signal);
        continue;
      }
      done();
      if (res.ok) return { res, data };
      const error = errorOf(res, new TextDecoder().decode(data));
      const retryable = RETRY_STATUSES.has(res.status) || (res.status === 409 && error.code === 'IDEMPOTENCY_IN_PROGRESS');
      if (!retryable || n >= maxRetries) throw error;
      const delay = error.retryAfter !== undefined ? error.retryAfter * 1000 : backoff(n);
      if (delay > maxDelay) throw error;
      await wait(delay, call.signal);
    }
  }
}

interface RawInput extends CallOptions {
  path?: Record<string, unknown>;
  query?: Record<string, unknown>;
  body?: unknown;
}

function pathFor(id: string, template: string, params: Record<string, unknown> = {}): string {
  return template.replace(/\{(\w+)\}/g, (_m, name: string) => {
    const value = params[name];
    if (value === undefined || value === null || value === '') throw new TypeError(`${id} needs path.${name}`);
    return encodeURIComponent(String(value));
  });
}

function queryString(query: Record<string, unknown> = {}): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) search.append(name, String(v));
  }
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}

/** Exponential from 0.5 s, at most 8 s, with jitter so that clients after an outage do not come back at once. */
function backoff(n: number): number {
  return Math.min(BASE_DELAY_MS * 2 ** n, 8000) * (0.75 + Math.random() * 0.5);
}

function attemptSignal(outer: AbortSignal | undefined, timeoutMs: number): { signal: AbortSignal; done: () => void } {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error('timeout')), timeoutMs);
  const onAbort = () => controller.abort(outer!.reason);
  outer?.addEventListener('abort', onAbort, { once: true });
  return {
    signal: controller.signal,
    done: () => {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onAbort);
    },
  };
}

function wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function describe(err: unknown): string {
  const e = err as { message?: string; cause?: { code?: string; message?: string } };
  return e.cause?.code ?? e.cause?.message ?? e.message ?? String(err);
}

/** The error of a non-2xx answer: `{ success: false, error }` (v2, crypto) or `{ error }` (v1); anything else by its status. */
function errorOf(res: Response, text: string): PayApiError {
  let error: { code?: unknown; message?: unknown; details?: unknown } | undefined;
  try {
    error = (JSON.parse(text) as { error?: typeof error }).error;
  } catch {
    // not JSON (a proxy's page): described by its status below
  }
  const retryAfter = Number(res.headers.get('retry-after') ?? NaN);
  return new PayApiError({
    status: res.status,
    code: typeof error?.code === 'string' ? error.code : `HTTP_${res.status}`,
    message: typeof error?.message === 'string' ? error.message : `HTTP ${res.status}: ${text.slice(0, 200)}`,
    details: Array.isArray(error?.details) ? (error.details as PayErrorDetail[]) : [],
    requestId: res.headers.get('x-request-id') ?? undefined,
    retryAfter: Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter : undefined,
  });
}
