import { createServer, type Server } from 'node:http';
import type { Express } from 'express';
import type { Logger } from 'pino';
import type { Lifecycle } from '../lifecycle';

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
        // A request still arriving on a kept-alive socket is answered, then its socket closes.
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
