import { createServer, type Server, type ServerResponse } from 'node:http';
import type { Express } from 'express';
import type { Logger } from 'pino';
import type { Lifecycle } from '@pay/runtime';

/** Between sweeps for keep-alive sockets whose last response has just finished. */
const IDLE_SWEEP_MS = 100;

/**
 * Listens and registers the listener as the first thing to close on shutdown: stop
 * accepting, let in-flight requests finish, close keep-alive sockets as soon as they are
 * idle. Requests that are still running at half the shutdown timeout have their sockets
 * closed, so a slow client cannot take the time the workers and pools need to close.
 */
export async function listen(app: Express, port: number, host: string, lifecycle: Lifecycle, logger: Logger): Promise<Server> {
  const server = createServer(app);
  // Answers not begun yet. At shutdown each is sent with `Connection: close`: a client that
  // kept the socket would otherwise send its next request on it just as the socket is swept
  // as idle, and get a reset with no way to know whether that request ran (a payment's create
  // must never be left in doubt); told, it opens a new connection, refused at once or sent
  // to another replica.
  const unanswered = new Set<ServerResponse>();
  server.on('request', (_req, res: ServerResponse) => {
    unanswered.add(res);
    res.once('close', () => unanswered.delete(res));
  });
  // Longer than a typical balancer's idle timeout, so it closes idle sockets first.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  lifecycle.onShutdown(
    'http',
    () =>
      new Promise<void>((resolve) => {
        // Every answer from now on ends its connection: those still running, and a request
        // that still arrives on a kept-alive socket (answered, then its socket closes).
        for (const res of unanswered) if (!res.headersSent) res.setHeader('Connection', 'close');
        server.prependListener('request', (_req, res) => res.setHeader('Connection', 'close'));
        const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
        const force = setTimeout(() => {
          logger.warn('requests still running at half the shutdown timeout; closing their connections');
          server.closeAllConnections();
        }, lifecycle.timeoutMs / 2);
        server.close(() => {
          clearInterval(sweep);
          clearTimeout(force);
          resolve();
        });
        server.closeIdleConnections();
      }),
  );
  const address = server.address();
  const actual = typeof address === 'object' && address ? address.port : port;
  logger.info({ url: `http://${host}:${actual}` }, 'listening');
  return server;
}
