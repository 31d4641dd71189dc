import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The body exactly as received. */
  body: string;
}

/** What the receiver answers: a status and body, or a function that writes the answer itself (late, or never). */
export type Answer = { status: number; body?: string; headers?: Record<string, string> } | ((req: ReceivedRequest, res: ServerResponse) => void);

/**
 * A real HTTP receiver on loopback for webhook tests: records every request in arrival order
 * and answers as told (200 by default). `inFlight`/`maxInFlight` show how many requests it
 * held at once.
 */
export async function startReceiver(answer: Answer = { status: 200, body: 'ok' }) {
  const received: ReceivedRequest[] = [];
  let current = answer;
  let inFlight = 0;
  let maxInFlight = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    res.on('close', () => inFlight--);
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: ReceivedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      received.push(r);
      if (typeof current === 'function') return current(r, res);
      res.writeHead(current.status, { 'Content-Type': 'text/plain', ...current.headers });
      res.end(current.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    received,
    get inFlight() {
      return inFlight;
    },
    get maxInFlight() {
      return maxInFlight;
    },
    answer(a: Answer) {
      current = a;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;
