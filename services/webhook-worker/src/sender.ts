import dns, { type LookupAddress } from 'node:dns';
import type { Socket } from 'node:net';
import { Agent, Client, Pool, buildConnector, type Dispatcher } from 'undici';
import { isPrivateAddress, outboundUrlProblem } from '@pay/http';
import { RESPONSE_EXCERPT_BYTES, webhookHeaders } from '@pay/webhooks';

/** Read past the excerpt so a keep-alive socket can be reused; a longer answer costs its socket. */
const MAX_DRAIN_BYTES = 256 * 1024;
/** URLs whose parse and check are kept (a few per endpoint): every send went through `new URL` twice. */
const PARSED_URLS = 1000;

/** What a send needs of its URL, parsed once: the check's verdict and the request's target. */
interface ParsedUrl {
  problem: string | null;
  /** `scheme://host[:port]`: undici keeps a pool of connections per origin. */
  origin: string;
  /** Path and query, as the request line carries them. */
  path: string;
}

export interface SendRequest {
  url: string;
  secret: string;
  /** A rotated secret still in its overlap: it signs too (webhookHeaders). */
  previousSecret?: string | null;
  deliveryId: string;
  event: string;
  body: string;
  /** `X-SVC-Timestamp`, Unix ms. */
  timestamp: number;
}

export interface SendResult {
  durationMs: number;
  statusCode: number | null;
  /** Network failure or refusal when there was no HTTP answer. */
  error: string | null;
  responseBody: string | null;
  succeeded: boolean;
  /** The destination was refused before any byte was sent (private address). */
  refused: boolean;
  /** The answer's Retry-After header, as sent (the schedule reads it on a 429 or 503). */
  retryAfter: string | null;
}

type LookupFn = typeof dns.lookup;

export interface SenderOptions {
  allowPrivate: boolean;
  timeoutMs: number;
  /** Name resolution; tests give one that maps a public-looking name to loopback. */
  lookup?: LookupFn;
  maxSocketsPerOrigin?: number;
}

interface Answer {
  statusCode: number;
  excerpt: string;
  retryAfter: string | null;
}

class RefusedAddress extends Error {
  readonly code = 'EWEBHOOKPRIVATE';
  constructor(host: string, address: string) {
    super(`refused: ${host} resolves to ${address}, a private, loopback or link-local address`);
  }
}

/**
 * Sends webhook requests: a POST with the spec's headers (and X-SVC-Signatures during a secret's overlap: webhookHeaders), no redirects followed (a 3xx
 * is a failed attempt; undici's dispatch follows none), 10 s for the whole exchange, keep-alive connections per origin.
 * Unless the operator allows private destinations, the address is checked where the
 * connection is made, not only where the URL was saved: every address a name resolves to is
 * checked before connecting (no DNS-rebinding gap), and the connected socket's remote
 * address is checked again before anything is written.
 *
 * undici's lower-level API (Agent → Pool → Client, `dispatch` with a handler), not node:http:
 * node's client was the largest part of the worker's CPU (ClientRequest, the agent, outgoing
 * message and its streams for every delivery), and neither fetch nor `request()` is used, for
 * the same reason (they wrap each answer in a stream).
 */
export class WebhookSender {
  private readonly agent: Agent;
  private readonly parsed = new Map<string, ParsedUrl>();

  constructor(private readonly o: SenderOptions) {
    const base = o.lookup ?? dns.lookup;
    // `lookup` goes through to net/tls.connect. `timeout` bounds the connect alone; the deadline
    // (post) bounds the whole exchange and fires first.
    const connector = buildConnector({ lookup: o.allowPrivate ? base : guardedLookup(base), timeout: o.timeoutMs, allowH2: false });
    this.agent = new Agent({
      connections: o.maxSocketsPerOrigin ?? 64,
      // HTTP/1.1 only, as before (undici would offer h2 over TLS).
      allowH2: false,
      connect: o.allowPrivate ? connector : guardedConnector(connector),
      // One deadline (post) covers headers and body: undici's own timers are off.
      headersTimeout: 0,
      bodyTimeout: 0,
      // Past this much body, undici destroys the socket and the answer ends with what was read.
      maxResponseSize: MAX_DRAIN_BYTES,
      // A Pool hands a request to its first idle connection, in the order they were opened:
      // the first few stay warm and the rest time out, as LIFO reuse did with node's agent.
      factory: (origin, options) => new Pool(origin, { ...(options as Pool.Options), factory: (at, opts) => new Connection(at, opts as Client.Options) }),
    });
  }

  async send(r: SendRequest): Promise<SendResult> {
    const started = performance.now();
    const done = (x: Omit<SendResult, 'durationMs'>): SendResult => ({ ...x, durationMs: Math.round(performance.now() - started) });
    const { problem } = this.parse(r.url);
    if (problem) return done({ statusCode: null, error: `refused: the URL ${problem}`, responseBody: null, succeeded: false, refused: true, retryAfter: null });
    try {
      const { statusCode, excerpt, retryAfter } = await this.post(r);
      return done({ statusCode, error: null, responseBody: excerpt, succeeded: statusCode >= 200 && statusCode < 300, refused: false, retryAfter });
    } catch (err) {
      const refused = (err as { code?: string }).code === 'EWEBHOOKPRIVATE';
      return done({ statusCode: null, error: (err as Error).message || String(err), responseBody: null, succeeded: false, refused, retryAfter: null });
    }
  }

  /** The URL's check (outboundUrlProblem: it depends on the text alone) and request target, kept per URL. */
  private parse(raw: string): ParsedUrl {
    let p = this.parsed.get(raw);
    if (!p) {
      const problem = outboundUrlProblem(raw, { allowPrivate: this.o.allowPrivate });
      const url = problem ? null : new URL(raw);
      p = { problem, origin: url?.origin ?? '', path: url ? `${url.pathname}${url.search}` : '' };
      if (this.parsed.size >= PARSED_URLS) this.parsed.delete(this.parsed.keys().next().value!);
      this.parsed.set(raw, p);
    }
    return p;
  }

  /**
   * One POST. A kept-alive socket the receiver closed as the request went out on it (its idle
   * timer fired while ours, late under load, had not) fails, by reset or by close, before any
   * byte of the answer: the receiver never read the request, so it goes out again on another
   * socket, as Node's documentation of `request.reusedSocket` advises. Only reused sockets, and
   * within the same deadline: a fresh connection that fails is a failed attempt. (A receiver
   * that did read it and then crashed gets it twice, with one X-SVC-Delivery: deliveries are
   * at least once.)
   */
  private post(r: SendRequest, deadline = performance.now() + this.o.timeoutMs): Promise<Answer> {
    const url = this.parse(r.url);
    // Content-Length (and Host, Connection: keep-alive) are written by undici from the body and origin.
    const headers = webhookHeaders({ secret: r.secret, previousSecret: r.previousSecret, deliveryId: r.deliveryId, event: r.event, timestamp: r.timestamp, body: r.body });
    return new Promise((resolve, reject) => {
      const exchange = new Exchange(this.o.timeoutMs, deadline, (err, answer) => {
        if (!err) resolve(answer!);
        else if (exchange.closedWhileIdle(err) && performance.now() < deadline) this.post(r, deadline).then(resolve, reject);
        else reject(err);
      });
      this.agent.dispatch({ origin: url.origin, path: url.path, method: 'POST', headers, body: r.body }, exchange);
    });
  }

  close(): void {
    // Destroys every socket at once (in-flight exchanges fail), as the agents' destroy() did.
    this.agent.destroy().catch(() => undefined);
  }
}

/**
 * One keep-alive connection (an undici Client: one socket at a time, one request on it at a
 * time). It counts the exchanges begun on its current socket, so an exchange knows whether it
 * went out on a reused socket: node's `request.reusedSocket`, which undici does not expose.
 */
class Connection extends Client {
  begun = 0;

  constructor(origin: URL, options: Client.Options) {
    super(origin, options);
    this.on('connect', () => {
      this.begun = 0; // a new socket
    });
  }

  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    if (handler instanceof Exchange) handler.connection = this;
    return super.dispatch(options, handler);
  }
}

/** One request and its answer, as undici calls it back; `done` is called once. */
class Exchange implements Dispatcher.DispatchHandler {
  connection: Connection | null = null;
  private controller: Dispatcher.DispatchController | null = null;
  private reused = false;
  /** A byte of the answer arrived (undici's message begin). */
  private answering = false;
  private statusCode = 0;
  private retryAfter: string | null = null;
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  private error: Error | null = null;
  private settled = false;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly timeoutMs: number,
    deadline: number,
    private readonly done: (err: Error | null, answer?: Answer) => void,
  ) {
    this.timer = setTimeout(() => this.expire(), Math.max(0, deadline - performance.now()));
  }

  /** Closed by the peer (reset, or undici's "other side closed") on a reused socket before any byte of the answer. */
  closedWhileIdle(err: Error): boolean {
    const code = (err as NodeJS.ErrnoException).code;
    return this.reused && !this.answering && (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET');
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    // Timed out while it waited for a connection: it goes no further (undici has no public way
    // to take a request out of its queue, so it is stopped here, before a byte is written).
    if (this.settled) return controller.abort(this.error!);
    this.controller = controller;
    if (this.connection) this.reused = this.connection.begun++ > 0;
  }

  onResponseStarted(): void {
    this.answering = true;
  }

  onResponseStart(_c: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    if (statusCode < 200) return; // informational: the answer follows
    this.statusCode = statusCode;
    const retryAfter = headers['retry-after'];
    this.retryAfter = (Array.isArray(retryAfter) ? retryAfter[0] : retryAfter) ?? null;
  }

  onResponseData(_c: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.kept < RESPONSE_EXCERPT_BYTES) {
      const part = chunk.subarray(0, RESPONSE_EXCERPT_BYTES - this.kept);
      this.chunks.push(part);
      this.kept += part.length;
    }
  }

  onResponseEnd(): void {
    this.answer();
  }

  onResponseError(_c: Dispatcher.DispatchController | null, err: Error): void {
    // Once the status line is in, the attempt has its answer: a body cut short (too long,
    // the deadline, a reset) still gives the status and what was read, as before.
    if (this.statusCode) this.answer();
    else this.settle(err);
  }

  private expire(): void {
    const err = new Error(`timed out after ${this.timeoutMs} ms`);
    if (this.controller) this.controller.abort(err); // undici destroys the socket and calls onResponseError
    else this.settle(err);
  }

  private answer(): void {
    // Postgres text cannot hold NUL; an excerpt is for reading, so they are dropped.
    const excerpt = Buffer.concat(this.chunks).toString('utf8').replace(/\u0000/g, '');
    this.settle(null, { statusCode: this.statusCode, excerpt, retryAfter: this.retryAfter });
  }

  private settle(err: Error | null, answer?: Answer): void {
    if (this.settled) return;
    this.settled = true;
    this.error = err;
    clearTimeout(this.timer);
    this.done(err, answer);
  }
}

/**
 * The connector (undici's, with the guarded lookup) with the second check: the connected
 * socket's remote address, at its TCP connect, before TLS starts its handshake (the listener
 * goes first) and before undici writes the request (it waits for the connector's callback).
 * Exported for its test: the lookup's check comes first, so a sender never reaches this one on a
 * machine without a public address routed to itself.
 */
export function guardedConnector(connect: buildConnector.connector): buildConnector.connector {
  return ((options: buildConnector.Options, callback: buildConnector.Callback) => {
    let refused: RefusedAddress | null = null;
    const socket = (connect as unknown as (o: buildConnector.Options, cb: buildConnector.Callback) => Socket)(options, (err, s) =>
      refused ? callback(refused, null) : (callback as (e: Error | null, s: Socket | null) => void)(err, s),
    );
    socket.prependOnceListener('connect', () => {
      const address = socket.remoteAddress;
      if (address && isPrivateAddress(address)) {
        const host = options.hostname.includes(':') ? `[${options.hostname}]` : options.hostname;
        socket.destroy((refused = new RefusedAddress(host, address)));
      }
    });
    return socket;
  }) as buildConnector.connector;
}

/** A `lookup` that fails when any address of the name is private, so the connection is never opened. */
function guardedLookup(base: LookupFn) {
  return ((hostname: string, options: dns.LookupOptions, callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void) => {
    base(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '');
      const list = addresses as LookupAddress[];
      const bad = list.find((a) => isPrivateAddress(a.address));
      if (bad) return callback(new RefusedAddress(hostname, bad.address) as NodeJS.ErrnoException, '');
      if (options.all) return callback(null, list);
      const first = list[0];
      if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '');
      callback(null, first.address, first.family);
    });
  }) as LookupFn;
}
