import express from 'express';
import { Agent, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger, Lifecycle } from '@pay/runtime';
import { listen } from './server';
import { healthRoutes } from './health';

interface Answer {
  status: number;
  body: string;
  connection: string | undefined;
}

function get(port: number, path: string, agent: Agent | false = false): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, agent }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, connection: res.headers.connection }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A listening app with /slow (answers after `slowMs`) and /hang (never answers). */
async function slowServer(shutdownTimeoutMs: number, slowMs = 300) {
  const logger = createLogger('test', 'silent');
  const lifecycle = new Lifecycle(logger, shutdownTimeoutMs);
  const app = express();
  let received = 0;
  app.use((_req, _res, next) => {
    received++;
    next();
  });
  app.get('/slow', (_req, res) => {
    setTimeout(() => res.send('finished'), slowMs);
  });
  app.get('/hang', () => undefined);
  const server = await listen(app, 0, '127.0.0.1', lifecycle, logger);
  const order: string[] = [];
  lifecycle.onShutdown('pool', () => {
    order.push('pool');
  });
  /**
   * Resolves once the server has received `count` requests in all. Shutting down before a
   * request has reached the server tests nothing: on a loaded machine a fixed pause can end
   * before it arrives, and a kept-alive socket that looks idle is then rightly closed.
   */
  const untilReceived = async (count: number) => {
    while (received < count) await new Promise((r) => setTimeout(r, 5));
  };
  return { lifecycle, order, port: (server.address() as AddressInfo).port, untilReceived };
}

describe('graceful shutdown', () => {
  it('finishes in-flight requests, refuses new connections, then runs the other closers in order', async () => {
    const { lifecycle, order, port, untilReceived } = await slowServer(5000);
    const inFlight = get(port, '/slow');
    await untilReceived(1);
    const done = lifecycle.shutdown('test');
    order.push('shutdown-called');
    expect(lifecycle.isShuttingDown).toBe(true);
    // A connect that races the listener's close lands in the kernel backlog and is reset
    // (ECONNRESET); one after it is refused. Either way it is never served.
    await expect(get(port, '/slow')).rejects.toThrow(/ECONNREFUSED|ECONNRESET/);
    expect(await inFlight).toEqual({ status: 200, body: 'finished', connection: 'close' });
    await done;
    expect(order).toEqual(['shutdown-called', 'pool']);
    expect(lifecycle.timedOut).toBe(false);
  });

  it('tells a kept-alive client its connection ends with the answer running at shutdown, and closes it without waiting for the timeout', async () => {
    const { lifecycle, order, port, untilReceived } = await slowServer(5000);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    expect(await get(port, '/slow', agent)).toEqual({ status: 200, body: 'finished', connection: 'keep-alive' });
    const inFlight = get(port, '/slow', agent); // reuses the kept-alive socket
    await untilReceived(2);
    const done = lifecycle.shutdown('test');
    // Begun before the shutdown, answered in full, and told not to send another on this socket:
    // the client cannot race the sweep that closes it as idle.
    expect(await inFlight).toEqual({ status: 200, body: 'finished', connection: 'close' });
    await done;
    expect(lifecycle.timedOut).toBe(false); // before the fix it waited the full 5 s and gave up
    expect(order).toEqual(['pool']);
    // The next request finds no listener: refused before it is sent, never left in doubt.
    await expect(get(port, '/slow', agent)).rejects.toThrow(/ECONNREFUSED/);
    agent.destroy();
  });

  it('cuts requests still running at half the timeout, so the later closers still run', async () => {
    const { lifecycle, order, port, untilReceived } = await slowServer(1000);
    const hung = get(port, '/hang');
    await untilReceived(1);
    await lifecycle.shutdown('test');
    await expect(hung).rejects.toThrow(/socket hang up|ECONNRESET/);
    expect(order).toEqual(['pool']);
    expect(lifecycle.timedOut).toBe(false);
  });

  it('drains first: /readyz answers 503 while requests are still served, then the listener closes', async () => {
    const logger = createLogger('test', 'silent');
    const lifecycle = new Lifecycle(logger, 2000, 400);
    const app = express();
    app.use(healthRoutes('test', [], () => lifecycle.isShuttingDown));
    app.get('/work', (_req, res) => res.send('served'));
    const port = ((await listen(app, 0, '127.0.0.1', lifecycle, logger)).address() as AddressInfo).port;
    expect((await get(port, '/readyz')).status).toBe(200);
    const started = Date.now();
    const done = lifecycle.shutdown('test');
    // Inside the drain window: not ready, but new connections are still answered.
    expect((await get(port, '/readyz')).status).toBe(503);
    expect(await get(port, '/work')).toMatchObject({ status: 200, body: 'served' });
    await done;
    // A timer is armed by the event loop's clock, cached when the loop turned: it can read up to
    // a millisecond behind Date.now, so a 400 ms drain may measure 399 ms here.
    expect(Date.now() - started).toBeGreaterThanOrEqual(399);
    await expect(get(port, '/work')).rejects.toThrow(/ECONNREFUSED|ECONNRESET/);
    expect(lifecycle.timedOut).toBe(false);
  });

  it('says when a closer outlives the timeout', async () => {
    const lifecycle = new Lifecycle(createLogger('test', 'silent'), 100);
    lifecycle.onShutdown('stuck', () => new Promise(() => undefined));
    await lifecycle.shutdown('test');
    expect(lifecycle.timedOut).toBe(true);
  });
});
