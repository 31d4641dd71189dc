/**
 * @pay/client: the merchant SDK for both base URLs. Every operation of invoicing v2, invoicing
 * v1 and crypto is a typed method in resource namespaces (`pay.invoicing.v2.invoices.create`,
 * `pay.crypto.withdrawals.create`), and the same function under its operationId
 * (`pay.invoicing.createInvoice`), its types, JSDoc and error codes generated from the committed
 * OpenAPI documents (src/generated/api.ts, see generate.mjs). The client does the protocol:
 * - signs each request in its base URL's style (invoicing v2: hex HMAC, Unix milliseconds;
 *   crypto: Base64 HMAC, Unix seconds), afresh on every attempt;
 * - gives every create an Idempotency-Key (the caller's, or a random one), the same on each retry;
 * - retries 503 and 429 after Retry-After, and a request that got no answer when repeating it
 *   is safe (a GET, or a create with its Idempotency-Key), with a bounded backoff; never another 4xx;
 * - throws PayApiError with the answer's code, message, details, status and X-Request-Id;
 * - pages list operations as async iterators (`pay.invoicing.v2.invoices.list.each()`,
 *   `pay.invoicing.each('listInvoices')`), or into an array (`.toArray({ limit })`);
 * - bounds each attempt (timeoutMs) and stops on the caller's AbortSignal;
 * - says who it is (User-Agent `pay-client-node/<version> node/<version>`) and tells `on('request')`
 *   and `on('response')` listeners of each attempt, never its credentials.
 * Only Node's builtins are used: it is installed alone.
 */
import { createHmac, randomUUID } from 'node:crypto';
import {
  CRYPTO_OPERATIONS,
  CRYPTO_RESOURCES,
  INVOICING_OPERATIONS,
  INVOICING_RESOURCES,
  SDK_VERSION,
  type CryptoApi,
  type CryptoErrorCodes,
  type CryptoMethods,
  type CryptoOperationTable,
  type CryptoResources,
  type InvoicingApi,
  type InvoicingErrorCodes,
  type InvoicingMethods,
  type InvoicingOperationTable,
  type InvoicingResources,
  type OperationSpec,
  type ResourceTree,
} from './generated/api';
import { WebhookTestHelpers, webhooks } from './test-webhooks';

export * from './generated/api';
export * from './test-webhooks';

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

/** The success codes the documents use: 202 is an accepted resend or replay, with a body like the others. */
type SuccessStatus = 200 | 201 | 202;
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

/** One method per operation, named by its operationId (kept for code written against 0.2; the client's own types are InvoicingClient and CryptoClient). */
export type Methods<Ops, Ids extends keyof Ops> = { readonly [K in Ids]: (...args: ArgsOf<Ops[K]>) => Promise<ResultOf<Ops[K]>> };

/**
 * The items of a list, page after page as the loop asks for them; `toArray({ limit })` collects
 * at most `limit` of them (fetching no page beyond), as stripe-node's autoPagingToArray does.
 */
export interface PageIterator<T> extends AsyncIterableIterator<T> {
  toArray(options: { limit: number }): Promise<T[]>;
}

/** The element type of a list operation's answer: v2's `data: [...]`, crypto's `data: { items: [...] }`. */
export type ItemOf<O> = ResultOf<O> extends { data: readonly (infer T)[] } ? T : ResultOf<O> extends { data: { items: readonly (infer T)[] } } ? T : never;

/**
 * One operation's method: called with its input, it resolves to the answer. `isError(err)`
 * tells its PayApiError apart, with `code` narrowed to the codes the operation declares (and the
 * client's own); a list operation also has `each(input)`, its items page after page.
 */
export type Operation<O, C extends string> = ((...args: ArgsOf<O>) => Promise<ResultOf<O>>) & {
  /** True when `err` is a PayApiError of this operation; its `code` is then one it declares, or the client's own (ClientErrorCode). */
  isError(err: unknown): err is OperationError<C>;
} & (Never<ItemOf<O>> extends true ? {} : { each(...args: ArgsOf<O>): PageIterator<ItemOf<O>> });

/** Each operationId's method type: what the generated Methods and Resources interfaces are filled with. */
export type OperationsOf<Ops, Codes> = { readonly [K in keyof Codes & keyof Ops]: Operation<Ops[K], Codes[K] & string> };

/** The list operations among Ids: those `each` pages through. */
export type ListIds<Ops, Ids extends keyof Ops> = { [K in Ids]: Never<ItemOf<Ops[K]>> extends true ? never : K }[Ids];

export interface Pager<Ops, Ids extends keyof Ops> {
  /**
   * Every item of a list operation, page after page (v2 by `offset`, crypto by `page`), fetched
   * as the loop asks for them. `query` sets the filters and the page size (`limit`, `pageSize`).
   * The same as `<list method>.each(input)`.
   */
  each<K extends ListIds<Ops, Ids>>(id: K, ...args: ArgsOf<Ops[K]>): PageIterator<ItemOf<Ops[K]>>;
}

export type InvoicingOperationId = keyof InvoicingOperationTable;
export type CryptoOperationId = keyof CryptoOperationTable;
type InvoicingFns = OperationsOf<InvoicingApi.operations, InvoicingErrorCodes>;
type CryptoFns = OperationsOf<CryptoApi.operations, CryptoErrorCodes>;
/** `pay.invoicing`: invoicing v2 (`v2.…`, signed; its sandbox in `sandbox.…`) and v1 (`v1.…`, key only), and every operation by its operationId. */
export interface InvoicingClient extends InvoicingResources<InvoicingFns>, InvoicingMethods<InvoicingFns>, Pager<InvoicingApi.operations, InvoicingOperationId> {}
/** `pay.crypto`: the crypto API (HMAC-signed where it asks for it), and every operation by its operationId. */
export interface CryptoClient extends CryptoResources<CryptoFns>, CryptoMethods<CryptoFns>, Pager<CryptoApi.operations, CryptoOperationId> {}

// ---------------------------------------------------------------------------------------------
// Errors.

export interface PayErrorDetail {
  field: string;
  message: string;
  [key: string]: unknown;
}

/**
 * Codes that come from the client, or from an answer no operation declares: `NETWORK_ERROR`
 * and `TIMEOUT` (status 0: no answer), `INTERNAL_ERROR` (the service's 500), and
 * `HTTP_<status>` for an answer that is not the API's error JSON (a proxy's page).
 */
export type ClientErrorCode = 'NETWORK_ERROR' | 'TIMEOUT' | 'INTERNAL_ERROR' | `HTTP_${number}`;
/** Every error code an operation of either API declares, and the client's own: `err.code === 'REFUND_EXCEDS_PAID'` fails the type check. */
export type PayErrorCode = InvoicingErrorCodes[InvoicingOperationId] | CryptoErrorCodes[CryptoOperationId] | ClientErrorCode;
/** A PayApiError of an operation whose codes are C (`pay.invoicing.v2.refunds.create.isError(err)` narrows to it). */
export type OperationError<C extends string> = PayApiError & { readonly code: C | ClientErrorCode };
/** The PayApiError of one method: `ErrorOf<typeof pay.invoicing.v2.refunds.create>['code']` is the union of its codes. */
export type ErrorOf<M> = M extends { isError(err: unknown): err is infer E } ? E : never;

/**
 * An operation refused (any non-2xx answer), or no answer at all (status 0: `NETWORK_ERROR`
 * when the connection failed, `TIMEOUT` when an attempt outlasted timeoutMs), after the
 * client's retries. `code` is the API's error code (`VALIDATION_ERROR`, `REPLAYED_REQUEST`, …),
 * typed as the union of every code the documents declare; the operation's own method narrows
 * it further (`isError`).
 */
export class PayApiError extends Error {
  readonly status: number;
  readonly code: PayErrorCode;
  readonly details: PayErrorDetail[];
  /** The answer's X-Request-Id: quote it to support. */
  readonly requestId: string | undefined;
  /** The answer's Retry-After, in seconds, when it had one. */
  readonly retryAfter: number | undefined;
  /** The API (`invoicing`, `crypto`) and operationId of the call that failed, when the client made it. */
  readonly service: SigningStyle | undefined;
  readonly operationId: string | undefined;

  constructor(init: { status: number; code: PayErrorCode; message: string; details?: PayErrorDetail[]; requestId?: string; retryAfter?: number; service?: SigningStyle; operationId?: string; cause?: unknown }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'PayApiError';
    this.status = init.status;
    this.code = init.code;
    this.details = init.details ?? [];
    this.requestId = init.requestId;
    this.retryAfter = init.retryAfter;
    this.service = init.service;
    this.operationId = init.operationId;
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
  /** Your application, added to the User-Agent (`MyShop/1.2.0 (https://shop.example)`), so the platform's support can tell your requests apart. */
  appInfo?: { name: string; version?: string; url?: string };
}

/** What `on('request')` listeners are told before each attempt (a retry is an attempt of its own). Never the API key, secret or signature. */
export interface RequestEvent {
  service: SigningStyle;
  operationId: string;
  method: string;
  /** The path with its query, e.g. `/api/v2/invoices?status=PAID`. */
  path: string;
  /** 1 for the first attempt, 2 for the first retry, … */
  attempt: number;
  idempotencyKey: string | undefined;
  /** When the attempt was sent (epoch ms). */
  requestStartTime: number;
}

/** What `on('response')` listeners are told after each attempt: its answer's status (0: none came), how long it took and its X-Request-Id. */
export interface ResponseEvent extends RequestEvent {
  status: number;
  /** ms from sending to the whole answer read. */
  elapsed: number;
  requestEndTime: number;
  /** The answer's X-Request-Id: quote it to support. */
  requestId: string | undefined;
  /** The error code when the attempt failed (the API's, or NETWORK_ERROR / TIMEOUT). */
  errorCode: PayErrorCode | undefined;
}

export interface PayClientEvents {
  request: RequestEvent;
  response: ResponseEvent;
}
type Listener<E extends keyof PayClientEvents> = (event: PayClientEvents[E]) => void;

interface Attempt {
  url: string;
  init: RequestInit & { headers: Record<string, string> };
}

const RETRY_STATUSES = new Set([429, 503]);
const BASE_DELAY_MS = 500;

export class PayClient {
  readonly invoicing: InvoicingClient;
  readonly crypto: CryptoClient;
  /** `webhooks.generateTestHeader(payload, secret)`: headers of a webhook as the platform signs it, for your receiver's tests. */
  readonly webhooks: WebhookTestHelpers = webhooks;
  private readonly options: PayClientOptions;
  private readonly userAgent: string;
  private readonly listeners: { [E in keyof PayClientEvents]: Listener<E>[] } = { request: [], response: [] };
  /** When each signed request (style, method, path, body) was last signed: a retry within the same second (crypto) must not repeat a signature, which the service refuses as a replay. */
  private readonly lastSigned = new Map<string, number>();

  constructor(options: PayClientOptions) {
    this.options = { ...options };
    this.userAgent = userAgentOf(options.appInfo);
    this.invoicing = this.service('invoicing', INVOICING_OPERATIONS as unknown as Record<string, OperationSpec>, INVOICING_RESOURCES) as unknown as InvoicingClient;
    this.crypto = this.service('crypto', CRYPTO_OPERATIONS as unknown as Record<string, OperationSpec>, CRYPTO_RESOURCES) as unknown as CryptoClient;
  }

  /**
   * Calls `listener` with each attempt's RequestEvent (`'request'`, before it is sent) or
   * ResponseEvent (`'response'`, once its answer is read or none came), as stripe-node does.
   * A listener that throws is reported as a process warning and does not fail the call.
   */
  on<E extends keyof PayClientEvents>(event: E, listener: Listener<E>): this {
    if (!(event in this.listeners)) throw new TypeError(`PayClient emits 'request' and 'response', not '${String(event)}'`);
    this.listeners[event].push(listener);
    return this;
  }

  /** Removes a listener `on` added. */
  off<E extends keyof PayClientEvents>(event: E, listener: Listener<E>): this {
    const list = this.listeners[event] as Listener<E>[] | undefined;
    const at = list ? list.indexOf(listener) : -1;
    if (at >= 0) list!.splice(at, 1);
    return this;
  }

  private emit<E extends keyof PayClientEvents>(event: E, payload: PayClientEvents[E]): void {
    for (const listener of [...this.listeners[event]] as Listener<E>[]) {
      try {
        listener(payload);
      } catch (err) {
        process.emitWarning(`a PayClient '${event}' listener threw: ${describe(err)}`, 'PayClientListenerWarning');
      }
    }
  }

  /** The service's methods under their operationIds and in their resource namespaces: the same function objects. */
  private service(style: SigningStyle, table: Record<string, OperationSpec>, resources: ResourceTree): Record<string, unknown> {
    const methods: Record<string, unknown> = {};
    for (const [id, spec] of Object.entries(table)) {
      const method = (input?: RawInput) => this.call(style, id, spec, input ?? {});
      method.isError = (err: unknown) => err instanceof PayApiError && err.service === style && err.operationId === id;
      method.each = (input?: RawInput) => this.pages(style, id, spec, input ?? {});
      methods[id] = method;
    }
    methods.each = (id: string, input?: RawInput) => {
      const spec = table[id];
      if (!spec) throw new TypeError(`${style} has no operation "${id}"`);
      return this.pages(style, id, spec, input ?? {});
    };
    const place = (tree: ResourceTree): Record<string, unknown> =>
      Object.fromEntries(Object.entries(tree).map(([key, node]) => [key, typeof node === 'string' ? methods[node] : place(node)]));
    for (const [key, node] of Object.entries(place(resources))) {
      if (key in methods) throw new Error(`${style}: the namespace ${key} has an operation's name`);
      methods[key] = node;
    }
    return methods;
  }

  private pages(style: SigningStyle, id: string, spec: OperationSpec, input: RawInput): PageIterator<unknown> {
    const iterator = this.pageItems(style, id, spec, input);
    return Object.assign(iterator, {
      async toArray({ limit }: { limit: number }): Promise<unknown[]> {
        if (!Number.isSafeInteger(limit) || limit < 1 || limit > 10_000) {
          throw new TypeError(`toArray needs { limit } between 1 and 10000 (got ${String(limit)}): it bounds how many items are held in memory; loop with for await for more`);
        }
        const items: unknown[] = [];
        for await (const item of iterator) {
          items.push(item);
          if (items.length >= limit) break; // ends the generator: no further page is fetched
        }
        return items;
      },
    });
  }

  private async *pageItems(style: SigningStyle, id: string, spec: OperationSpec, input: RawInput): AsyncGenerator<unknown> {
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
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': this.userAgent };
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
    const { res, data } = await this.send(attempt, repeatable, input, { service: style, operationId: id, method: spec.method.toUpperCase(), path, idempotencyKey });
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
  private async send(attempt: () => Attempt, repeatable: boolean, call: CallOptions, about: Omit<RequestEvent, 'attempt' | 'requestStartTime'>): Promise<{ res: Response; data: ArrayBuffer }> {
    const fetchFn = this.options.fetch ?? fetch;
    const maxRetries = this.options.maxRetries ?? 3;
    const maxDelay = this.options.maxRetryDelayMs ?? 30_000;
    const timeoutMs = call.timeoutMs ?? this.options.timeoutMs ?? 30_000;
    for (let n = 0; ; n++) {
      call.signal?.throwIfAborted();
      const { url, init } = attempt();
      const { signal, done } = attemptSignal(call.signal, timeoutMs);
      const request: RequestEvent = { ...about, attempt: n + 1, requestStartTime: Date.now() };
      this.emit('request', request);
      const answered = (status: number, requestId: string | undefined, errorCode: PayErrorCode | undefined) => {
        const requestEndTime = Date.now();
        this.emit('response', { ...request, status, elapsed: requestEndTime - request.requestStartTime, requestEndTime, requestId, errorCode });
      };
      let res: Response;
      let data: ArrayBuffer;
      try {
        res = await fetchFn(url, { ...init, signal });
        data = await res.arrayBuffer();
      } catch (err) {
        done();
        const timedOut = signal.aborted && !call.signal?.aborted;
        answered(0, undefined, timedOut ? 'TIMEOUT' : 'NETWORK_ERROR');
        if (call.signal?.aborted) throw call.signal.reason;
        const error = new PayApiError({
          status: 0,
          code: timedOut ? 'TIMEOUT' : 'NETWORK_ERROR',
          message: timedOut ? `${init.method} ${url}: no answer within ${timeoutMs} ms` : `${init.method} ${url}: ${describe(err)}`,
          service: about.service,
          operationId: about.operationId,
          cause: err,
        });
        if (!repeatable || n >= maxRetries) throw error;
        await wait(backoff(n), call.signal);
        continue;
      }
      done();
      const requestId = res.headers.get('x-request-id') ?? undefined;
      if (res.ok) {
        answered(res.status, requestId, undefined);
        return { res, data };
      }
      const error = errorOf(res, new TextDecoder().decode(data), about);
      answered(res.status, requestId, error.code);
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
function errorOf(res: Response, text: string, about: { service: SigningStyle; operationId: string }): PayApiError {
  let error: { code?: unknown; message?: unknown; details?: unknown } | undefined;
  try {
    error = (JSON.parse(text) as { error?: typeof error }).error;
  } catch {
    // not JSON (a proxy's page): described by its status below
  }
  const retryAfter = Number(res.headers.get('retry-after') ?? NaN);
  return new PayApiError({
    status: res.status,
    // The documents declare the codes an operation answers with; one they do not is still passed on as sent.
    code: typeof error?.code === 'string' ? (error.code as PayErrorCode) : `HTTP_${res.status}`,
    message: typeof error?.message === 'string' ? error.message : `HTTP ${res.status}: ${text.slice(0, 200)}`,
    details: Array.isArray(error?.details) ? (error.details as PayErrorDetail[]) : [],
    requestId: res.headers.get('x-request-id') ?? undefined,
    retryAfter: Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter : undefined,
    service: about.service,
    operationId: about.operationId,
  });
}

/** `pay-client-node/<SDK version> node/<Node version>`, then the merchant's application if named (stripe-node's appInfo). */
function userAgentOf(app: PayClientOptions['appInfo']): string {
  const node = typeof process !== 'undefined' && process.version ? process.version : 'unknown';
  const base = `pay-client-node/${SDK_VERSION} node/${node}`;
  if (!app) return base;
  if (typeof app.name !== 'string' || !/^[\x21-\x7e]+$/.test(app.name)) throw new TypeError('appInfo.name must be a product token: printable ASCII without spaces, e.g. "MyShop"');
  const clean = (text: string) => text.replace(/[^\x20-\x7e]/g, '');
  return `${base} ${app.name}${app.version ? `/${clean(app.version).replace(/\s/g, '')}` : ''}${app.url ? ` (${clean(app.url)})` : ''}`;
}
