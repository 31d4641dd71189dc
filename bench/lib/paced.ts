import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Figures } from './types';
import type { LoadOptions } from './load';

/** A request not answered this long after its send time counts as a timeout (autocannon's default). */
const TIMEOUT_MS = 10_000;

/** Nearest-rank percentile of ascending values. */
function percentile(sorted: number[], p: number): number {
  return sorted.length ? sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)]! : 0;
}

/**
 * An open-loop load at a fixed offered rate: request k leaves at start + k/rate whatever
 * the answers before it, over at most `connections` keep-alive sockets (more wait for a free
 * one, and that wait counts in their latency, measured from the planned send time).
 *
 * Not autocannon's overallRate: it gives each connection a budget per one-second tick, which
 * every connection sends back to back at the tick, so "40% of saturation" is a burst at
 * saturation for 40% of each second, and its coordinated-omission correction (an expected
 * interval of ceil(1 / rate) = 1 ms) adds made-up samples to every latency over 1 ms.
 */
export function paced(o: LoadOptions & { rate: number }): Promise<Figures> {
  const target = new URL(o.url);
  // FIFO keeps every open socket in use: with the default LIFO, sockets opened during a
  // latency spike sit idle until the server's keep-alive timeout closes them, and a request
  // sent on one as it closes fails with ECONNRESET.
  const agent = new Agent({ keepAlive: true, maxSockets: o.connections, scheduling: 'fifo' });
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
  let done = false;
  const start = performance.now();

  return new Promise((resolve) => {
    const finish = () => {
      if (done) return;
      done = true;
      clearInterval(ticker);
      clearTimeout(deadline);
      agent.destroy();
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
    const settle = () => {
      if (++settled === total) finish();
    };
    const send = (plannedAt: number) => {
      const r = o.next();
      const body = r.body === undefined ? undefined : Buffer.from(r.body);
      const req = request(
        {
          agent,
          host: target.hostname,
          port: target.port,
          method: r.method,
          path: prefix + r.path,
          headers: { ...r.headers, ...(body ? { 'content-length': String(body.length) } : {}) },
        },
        (res) => {
          res.resume();
          res.on('end', () => {
            lastAnswer = performance.now();
            latencies.push(lastAnswer - plannedAt);
            const code = String(res.statusCode);
            statusCodes[code] = (statusCodes[code] ?? 0) + 1;
            if (res.statusCode! < 200 || res.statusCode! >= 300) non2xx++;
            settle();
          });
        },
      );
      req.on('error', (err: NodeJS.ErrnoException) => {
        const code = err.code ?? err.message;
        socketErrorCodes[code] = (socketErrorCodes[code] ?? 0) + 1;
        socketErrors++;
        settle();
      });
      req.end(body);
    };
    // Timers fire about once a millisecond; each tick sends every request that is due.
    const ticker = setInterval(() => {
      const due = Math.min(total, Math.floor(((performance.now() - start) * o.rate) / 1000) + 1);
      while (sent < due) send(start + (sent++ * 1000) / o.rate);
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
