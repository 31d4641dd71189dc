import http from 'node:http';
import net from 'node:net';
import { WebhookSender } from './sender';

/**
 * A kept-alive connection the receiver closes just as the next delivery goes out on it: the
 * race every HTTP client with keep-alive meets (the server's idle timer fires while the
 * client, its event loop late under load, picks the idle socket). The receiver never read the
 * request, so the attempt must not fail for it: Node's documentation of `request.reusedSocket`
 * gives the same rule, send again once on a new connection.
 */

/**
 * A raw HTTP/1.1 receiver: the first request on each connection is answered 200 with
 * keep-alive; a second request on the same connection is dropped unread, by reset (RST) or
 * by an orderly close (FIN), as a server whose idle timer just fired does.
 */
async function closingReceiver(close: 'reset' | 'end') {
  let connections = 0;
  let answered = 0;
  const server = net.createServer((socket) => {
    connections++;
    let requests = 0;
    let buffered = '';
    socket.on('data', (chunk) => {
      buffered += chunk.toString('latin1');
      // One whole request: headers, then Content-Length bytes of body.
      const end = buffered.indexOf('\r\n\r\n');
      if (end < 0) return;
      const length = Number(/content-length:\s*(\d+)/i.exec(buffered.slice(0, end))?.[1] ?? 0);
      if (buffered.length < end + 4 + length) return;
      buffered = buffered.slice(end + 4 + length);
      if (++requests > 1) return close === 'reset' ? socket.resetAndDestroy() : socket.end();
      answered++;
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\nKeep-Alive: timeout=60\r\n\r\nok');
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    stats: () => ({ connections, answered }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const delivery = (url: string, n: number) => ({
  url,
  secret: 's',
  deliveryId: `00000000-0000-4000-8000-00000000000${n}`,
  event: 'invoice.paid',
  body: `{"n":${n}}`,
  timestamp: Date.now(),
});

describe('a kept-alive connection closed by the receiver as a delivery goes out on it', () => {
  it.each(['reset', 'end'] as const)('sends once more on a new connection (closed by %s), and the attempt succeeds', async (close) => {
    const receiver = await closingReceiver(close);
    const sender = new WebhookSender({ allowPrivate: true, timeoutMs: 5000, maxSocketsPerOrigin: 1 });
    try {
      expect(await sender.send(delivery(receiver.url, 1))).toMatchObject({ succeeded: true, statusCode: 200 });
      // The second goes out on the first's idle socket, which the receiver drops unread.
      expect(await sender.send(delivery(receiver.url, 2))).toMatchObject({ succeeded: true, statusCode: 200, error: null });
      expect(receiver.stats()).toEqual({ connections: 2, answered: 2 });
    } finally {
      sender.close();
      await receiver.close();
    }
  });

  it('fails the attempt when a new connection is dropped too: only a reused socket is tried again', async () => {
    // Every connection is dropped at its first request: nothing was kept alive, so nothing is retried.
    const server = net.createServer((socket) => {
      socket.once('data', () => socket.resetAndDestroy());
      socket.on('error', () => undefined);
    });
    let connections = 0;
    server.on('connection', () => connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const sender = new WebhookSender({ allowPrivate: true, timeoutMs: 5000 });
    try {
      const r = await sender.send(delivery(`http://127.0.0.1:${(server.address() as net.AddressInfo).port}/`, 3));
      expect(r).toMatchObject({ succeeded: false, statusCode: null });
      expect(r.error).toMatch(/ECONNRESET|socket hang up/);
      expect(connections).toBe(1);
    } finally {
      sender.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('an answer longer than the excerpt', () => {
  it('is read to its end to keep the connection, up to 256 KiB; a longer one costs its connection', async () => {
    // Answers 500 with a body of `?size=` bytes, and counts connections.
    let connections = 0;
    const server = http.createServer((req, res) => {
      const size = Number(new URL(req.url!, 'http://x').searchParams.get('size'));
      req.resume().on('end', () => res.writeHead(500, { 'Content-Type': 'text/plain' }).end(Buffer.alloc(size, 'a')));
    });
    server.on('connection', () => connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = (size: number) => `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/hook?size=${size}`;
    const sender = new WebhookSender({ allowPrivate: true, timeoutMs: 5000, maxSocketsPerOrigin: 1 });
    try {
      const excerpt = { succeeded: false, statusCode: 500, error: null, responseBody: 'a'.repeat(1024) };
      expect(await sender.send(delivery(url(200 * 1024), 4))).toMatchObject(excerpt);
      expect(await sender.send(delivery(url(200 * 1024), 5))).toMatchObject(excerpt);
      expect(connections).toBe(1); // drained, so kept
      expect(await sender.send(delivery(url(300 * 1024), 6))).toMatchObject(excerpt); // the answer stands, cut short
      expect(await sender.send(delivery(url(10), 7))).toMatchObject({ statusCode: 500, responseBody: 'a'.repeat(10) });
      expect(connections).toBe(2); // the long one's connection was given up
    } finally {
      sender.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
