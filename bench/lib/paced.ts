import { connect, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Figures, LoadOptions } from './types';

/** A request not answered this long after the last planned send counts as a timeout (autocannon's default). */
const TIMEOUT_MS = 10_000;
const HEAD_END = Buffer.from('\r\n\r\n');
const EMPTY: Buffer = Buffer.alloc(0);

/** Nearest-rank percentile of ascending values. */
function percentile(sorted: number[], p: number): number {
  return sorted.length ? sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)]! : 0;
}

interface Planned {
  at: number;
  bytes: Buffer;
}

interface Connection {
  send(p: Planned): void;
}

/**
 * An open-loop load at a fixed offered rate: request k leaves at start + k/rate whatever
 * the answers before it, over at most `connections` keep-alive connections (a request
 * finding none free waits for one, and that wait counts in its latency, which is measured
 * from its planned send time).
 *
 * Not autocannon's overallRate: it gives each connection a budget per one-second tick, which
 * every connection sends back to back at the tick, so "40% of saturation" is a burst at
 * saturation for 40% of each second, and its coordinated-omission correction (an expected
 * interval of ceil(1 / rate) = 1 ms) adds made-up samples to every latency over 1 ms.
 * Not node:http either: it cost twice autocannon's CPU per request (~250 µs against ~110),
 * taken from the service on a 2-core machine. This speaks just enough HTTP/1.1: one request
 * at a time per connection, answers framed by Content-Length.
 */
export function paced(o: LoadOptions & { rate: number }): Promise<Figures> {
  const target = new URL(o.url);
  const prefix = o.prefix ?? '';
  const total = Math.round(o.rate * o.seconds);
  const latencies: number[] = [];
  const statusCodes: Record<string, number> = {};
  const socketErrorCodes: Record<string, number> = {};
  let non2xx = 0;
  let socketErrors = 0;
  let settled = 0;
  let sent = 0;
  let lastAnswer = 0;
  let open = 0;
  const idle: Connection[] = []; // FIFO: every open connection stays in use
  const waiting: Planned[] = [];
  let nextWaiting = 0;
  const sockets = new Set<Socket>();
  let done = false;
  const start = performance.now();

  return new Promise((resolve) => {
    const finish = () => {
      if (done) return;
      done = true;
      clearInterval(ticker);
      clearTimeout(deadline);
      for (const s of sockets) s.destroy();
      latencies.sort((a, b) => a - b);
      resolve({
        rps: latencies.length / (Math.max(lastAnswer - start, o.seconds * 1000) / 1000),
        p50: percentile(latencies, 0.5),
        p99: percentile(latencies, 0.99),
        errors: non2xx + socketErrors,
        non2xx,
        socketErrors,
        requests: latencies.length + socketErrors,
        statusCodes,
        socketErrorCodes,
      });
    };
    const answered = (p: Planned, status: number) => {
      lastAnswer = performance.now();
      latencies.push(lastAnswer - p.at);
      statusCodes[status] = (statusCodes[status] ?? 0) + 1;
      if (status < 200 || status >= 300) non2xx++;
      if (++settled === total) finish();
    };
    const failed = (code: string) => {
      socketErrorCodes[code] = (socketErrorCodes[code] ?? 0) + 1;
      socketErrors++;
      if (++settled === total) finish();
    };
    const takeWaiting = (): Planned | undefined => {
      const p = waiting[nextWaiting];
      if (!p) return undefined;
      waiting[nextWaiting++] = undefined as never;
      if (nextWaiting === waiting.length) waiting.length = nextWaiting = 0;
      return p;
    };

    const openConnection = (first: Planned) => {
      open++;
      const socket = connect({ host: target.hostname, port: Number(target.port), noDelay: true });
      sockets.add(socket);
      let current: Planned | null = null;
      let buffered: Buffer = EMPTY;
      let errorCode = 'ECONNRESET';
      const conn: Connection = {
        send(p) {
          current = p;
          socket.write(p.bytes);
        },
      };
      const free = () => {
        const p = takeWaiting();
        if (p) conn.send(p);
        else idle.push(conn);
      };
      socket.on('data', (data: Buffer) => {
        buffered = buffered.length ? Buffer.concat([buffered, data]) : data;
        const headEnd = buffered.indexOf(HEAD_END);
        if (headEnd < 0) return;
        const head = buffered.toString('latin1', 0, headEnd);
        const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
        if (!length) {
          errorCode = 'NO_CONTENT_LENGTH'; // chunked answers are not read here
          socket.destroy();
          return;
        }
        if (buffered.length < headEnd + HEAD_END.length + Number(length[1])) return;
        answered(current!, Number(head.slice(9, 12)));
        current = null;
        buffered = EMPTY;
        if (/\r\nconnection:\s*close/i.test(head)) socket.destroy();
        else free();
      });
      socket.on('error', (err: NodeJS.ErrnoException) => {
        errorCode = err.code ?? err.message;
      });
      socket.on('close', () => {
        open--;
        sockets.delete(socket);
        const i = idle.indexOf(conn);
        if (i >= 0) idle.splice(i, 1);
        if (current && !done) failed(errorCode);
        const p = takeWaiting();
        if (p && !done) openConnection(p);
      });
      conn.send(first);
    };

    const dispatch = (p: Planned) => {
      const conn = idle.shift();
      if (conn) conn.send(p);
      else if (open < o.connections) openConnection(p);
      else waiting.push(p);
    };
    const plan = (at: number): Planned => {
      const r = o.next();
      const body = r.body === undefined ? EMPTY : Buffer.from(r.body);
      let head = `${r.method} ${prefix}${r.path} HTTP/1.1\r\nHost: ${target.host}\r\n`;
      for (const [name, value] of Object.entries(r.headers ?? {})) {
        if (name.toLowerCase() !== 'content-length') head += `${name}: ${value}\r\n`;
      }
      if (body.length || r.method !== 'GET') head += `Content-Length: ${body.length}\r\n`;
      return { at, bytes: Buffer.concat([Buffer.from(`${head}\r\n`, 'latin1'), body]) };
    };

    // Timers fire about once a millisecond; each tick sends every request that is due.
    const ticker = setInterval(() => {
      const due = Math.min(total, Math.floor(((performance.now() - start) * o.rate) / 1000) + 1);
      while (sent < due) dispatch(plan(start + (sent++ * 1000) / o.rate));
      if (sent === total) clearInterval(ticker);
    }, 1);
    // Whatever is still unanswered this long after the last planned send has timed out.
    const deadline = setTimeout(() => {
      socketErrorCodes.TIMEOUT = total - settled;
      socketErrors += total - settled;
      finish();
    }, o.seconds * 1000 + TIMEOUT_MS);
  });
}
