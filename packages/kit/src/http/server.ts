import { createServer, type Server } from 'node:http';
import type { Express } from 'express';
import type { Logger } from 'pino';
import type { Lifecycle } from '../lifecycle';

/**
 * Listens and registers the listener as the first thing to close on shutdown: stop
 * accepting, let in-flight requests finish, drop idle keep-alive sockets.
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
  lifecycle.onShutdown('http', () => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    return closed;
  });
  const address = server.address();
  const actual = typeof address === 'object' && address ? address.port : port;
  logger.info({ url: `http://${host}:${actual}` }, 'listening');
  return server;
}
