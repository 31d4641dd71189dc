import http from 'node:http';
import https from 'node:https';
import dns, { type LookupAddress } from 'node:dns';
import type { Socket } from 'node:net';
import { isPrivateAddress, outboundUrlProblem } from '@pay/http';
import { RESPONSE_EXCERPT_BYTES, webhookHeaders } from '@pay/webhooks';

/** Read past the excerpt so a keep-alive socket can be reused; a longer answer costs its socket. */
const MAX_DRAIN_BYTES = 256 * 1024;
/** URLs whose parse and check are kept (a few per endpoint): every send went through `new URL` twice. */
const PARSED_URLS = 1000;

/** What a send needs of its URL, parsed once: the check's verdict and the request's target. */
interface ParsedUrl {
  problem: string | null;
  secure: boolean;
  hostname: string;
  /** For http.request: host (brackets off an IPv6 literal), port and path, as it derives them from a URL. */
  target: { protocol: string; hostname: string; port: number | undefined; path: string };
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

class RefusedAddress extends Error {
  readonly code = 'EWEBHOOKPRIVATE';
  constructor(host: string, address: string) {
    super(`refused: ${host} resolves to ${address}, a private, loopback or link-local address`);
  }
}

/**
 * Sends webhook requests: a POST with the spec's headers (and X-SVC-Signatures during a secret's overlap: webhookHeaders), no redirects followed (a 3xx
 * is a failed attempt), 10 s for the whole exchange, keep-alive connections per origin.
 * Unless the operator allows private destinations, the address is checked where the
 * connection is made, not only where the URL was saved: every address a name resolves to is
 * checked before connecting (no DNS-rebinding gap), and the connected socket's remote
 * address is checked again before anything is written.
 */
export class WebhookSender {
  private readonly agents: { http: http.Agent; https: https.Agent };
  private readonly lookup: LookupFn;
  private readonly parsed = new Map<string, ParsedUrl>();

  constructor(private readonly o: SenderOptions) {
    const base = o.lookup ?? dns.lookup;
    this.lookup = (o.allowPrivate ? base : guardedLookup(base)) as LookupFn;
    const agentOptions = { keepAlive: true, maxSockets: o.maxSocketsPerOrigin ?? 64, scheduling: 'lifo' as const };
    this.agents = { http: new http.Agent(agentOptions), https: new https.Agent(agentOptions) };
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
      p = {
        problem,
        secure: url?.protocol === 'https:',
        hostname: url?.hostname ?? '',
        // What http.request takes from a URL object (urlToHttpOptions).
        target: url
          ? { protocol: url.protocol, hostname: url.hostname.replace(/^\[|\]$/g, ''), port: url.port === '' ? undefined : Number(url.port), path: `${url.pathname}${url.search}` }
          : { protocol: '', hostname: '', port: undefined, path: '' },
      };
      if (this.parsed.size >= PARSED_URLS) this.parsed.delete(this.parsed.keys().next().value!);
      this.parsed.set(raw, p);
    }
    return p;
  }

  /**
   * One POST. A kept-alive socket the receiver closed as the request went out on it (its idle
   * timer fired while ours, late under load, had not) fails with ECONNRESET before any answer:
   * the receiver never read the request, so it goes out again on another socket, as Node's
   * documentation of `request.reusedSocket` advises. Only reused sockets, and within the same
   * deadline: a fresh connection that fails is a failed attempt. (A receiver that did read it
   * and then crashed gets it twice, with one X-SVC-Delivery: deliveries are at least once.)
   */
  private post(r: SendRequest, deadline = performance.now() + this.o.timeoutMs): Promise<{ statusCode: number; excerpt: string; retryAfter: string | null }> {
    const url = this.parse(r.url);
    const secure = url.secure;
    const headers = {
      ...webhookHeaders({ secret: r.secret, previousSecret: r.previousSecret, deliveryId: r.deliveryId, event: r.event, timestamp: r.timestamp, body: r.body }),
      'Content-Length': String(Buffer.byteLength(r.body)),
    };
    return new Promise((resolve, reject) => {
      const req = (secure ? https : http).request({
        ...url.target,
        method: 'POST',
        headers,
        agent: secure ? this.agents.https : this.agents.http,
        lookup: this.lookup,
      });
      const timer = setTimeout(() => req.destroy(new Error(`timed out after ${this.o.timeoutMs} ms`)), Math.max(0, deadline - performance.now()));
      let answered = false;
      const fail = (err: Error) => {
        clearTimeout(timer);
        const closedWhileIdle = req.reusedSocket && !answered && (err as NodeJS.ErrnoException).code === 'ECONNRESET';
        if (closedWhileIdle && performance.now() < deadline) this.post(r, deadline).then(resolve, reject);
        else reject(err);
      };
      req.on('error', fail);
      if (!this.o.allowPrivate) {
        req.on('socket', (socket: Socket) => {
          const check = () => {
            const address = socket.remoteAddress;
            if (address && isPrivateAddress(address)) req.destroy(new RefusedAddress(url.hostname, address));
          };
          if (socket.connecting) socket.once('connect', check);
          else check();
        });
      }
      req.on('response', (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        let kept = 0;
        let seen = 0;
        res.on('data', (chunk: Buffer) => {
          seen += chunk.length;
          if (kept < RESPONSE_EXCERPT_BYTES) {
            const part = chunk.subarray(0, RESPONSE_EXCERPT_BYTES - kept);
            chunks.push(part);
            kept += part.length;
          }
          if (seen > MAX_DRAIN_BYTES) res.destroy();
        });
        const finish = () => {
          clearTimeout(timer);
          // Postgres text cannot hold NUL; an excerpt is for reading, so they are dropped.
          const retryAfter = res.headers['retry-after'];
          resolve({ statusCode: res.statusCode ?? 0, excerpt: Buffer.concat(chunks).toString('utf8').replace(/\u0000/g, ''), retryAfter: typeof retryAfter === 'string' ? retryAfter : null });
        };
        res.on('end', finish);
        res.on('close', finish);
        res.on('error', finish);
      });
      req.end(r.body);
    });
  }

  close(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }
}

/** A `lookup` that fails when any address of the name is private, so the connection is never opened. */
function guardedLookup(base: LookupFn) {
  return (hostname: string, options: dns.LookupOptions, callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void) => {
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
  };
}
