import express from 'express';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from './logger';
import { Lifecycle } from './lifecycle';
import { listen } from './http/server';

function get(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('graceful shutdown', () => {
  it('finishes in-flight requests, refuses new connections, then runs the other closers in order', async () => {
    const logger = createLogger('test', 'silent');
    const lifecycle = new Lifecycle(logger, 5000);
    const app = express();
    app.get('/slow', (_req, res) => {
      setTimeout(() => res.send('finished'), 300);
    });
    const server = await listen(app, 0, '127.0.0.1', lifecycle, logger);
    const order: string[] = [];
    lifecycle.onShutdown('pool', () => {
      order.push('pool');
    });
    const port = (server.address() as AddressInfo).port;

    const inFlight = get(port, '/slow');
    await new Promise((r) => setTimeout(r, 50));
    const done = lifecycle.shutdown('test');
    order.push('shutdown-called');
    expect(lifecycle.isShuttingDown).toBe(true);
    // A connect that races the listener's close lands in the kernel backlog and is reset
    // (ECONNRESET); one after it is refused. Either way it is never served.
    await expect(get(port, '/slow')).rejects.toThrow(/ECONNREFUSED|ECONNRESET/);
    expect(await inFlight).toEqual({ status: 200, body: 'finished' });
    await done;
    expect(order).toEqual(['shutdown-called', 'pool']);
  });
});
