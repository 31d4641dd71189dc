import dns from 'node:dns';
import net from 'node:net';
import request from 'supertest';
import { buildConnector } from 'undici';
import { startReceiver, type Receiver } from '@pay/testing';
import { createLogger } from '@pay/runtime';
import { WebhookSender, guardedConnector } from './sender';
import { buildWorkerApp } from './app';
import { DeliveryMetrics } from './metrics';
import { deliveryForSuite } from '../test/test-support';

const ctx = deliveryForSuite();

/** A resolver where public-looking names point wherever the test says (DNS rebinding, in effect). */
function resolvingTo(map: Record<string, string>): typeof dns.lookup {
  return ((hostname: string, options: dns.LookupOptions, cb: (err: Error | null, address: string | dns.LookupAddress[], family?: number) => void) => {
    const address = map[hostname];
    if (!address) return dns.lookup(hostname, options, cb as never);
    const entry = { address, family: address.includes(':') ? 6 : 4 };
    return options.all ? cb(null, [entry]) : cb(null, entry.address, entry.family);
  }) as typeof dns.lookup;
}

const req = (url: string) => ({ url, secret: 's', deliveryId: '00000000-0000-4000-8000-000000000001', event: 'invoice.paid', body: '{}', timestamp: Date.now() });

describe('outbound safety', () => {
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(() => receiver.close());

  it('refuses a public-looking name that resolves to loopback, checked where the connection is made', async () => {
    const sender = new WebhookSender({ allowPrivate: false, timeoutMs: 2000, lookup: resolvingTo({ 'hooks.merchant.example': '127.0.0.1', 'v6.merchant.example': '::1' }) });
    try {
      for (const host of ['hooks.merchant.example', 'v6.merchant.example']) {
        const r = await sender.send(req(`http://${host}:${receiver.port}/hook`));
        expect(r).toMatchObject({ succeeded: false, refused: true, statusCode: null });
        expect(r.error).toMatch(/resolves to .*private, loopback or link-local/);
      }
      for (const url of [`http://127.0.0.1:${receiver.port}/`, 'http://localhost/', 'http://169.254.169.254/latest/meta-data', 'http://[::ffff:127.0.0.1]/', 'http://10.1.2.3/']) {
        const r = await sender.send(req(url));
        expect(r).toMatchObject({ refused: true, succeeded: false });
      }
      expect(receiver.received).toHaveLength(0);
    } finally {
      sender.close();
    }
  });

  it('refuses the loopback receiver hidden in IPv6 forms and behind a trailing dot', async () => {
    // Every one of these names/URLs reaches the loopback receiver when allowed (checked
    // below), so a refusal here is the guard, not an unreachable address.
    // `localhost.` resolves to loopback wherever the resolver honours the root label (this
    // machine's does not, so the map says what such a resolver answers).
    const names = { 'mapped.merchant.example': '::ffff:127.0.0.1', 'mappedhex.merchant.example': '::ffff:7f00:1', 'localhost.': '127.0.0.1' };
    const urls = [
      `http://mapped.merchant.example:${receiver.port}/hook`,
      `http://mappedhex.merchant.example:${receiver.port}/hook`,
      `http://[::ffff:7f00:1]:${receiver.port}/hook`,
      `http://localhost.:${receiver.port}/hook`,
    ];
    // Behind a NAT64 gateway or a 6to4 relay these reach the v4 loopback too; this machine has
    // neither, so without the guard they would fail as EHOSTUNREACH rather than be refused.
    const translated = {
      'nat64.merchant.example': '64:ff9b::7f00:1',
      'sixtofour.merchant.example': '2002:7f00:1::1',
      'compat.merchant.example': '::127.0.0.1',
    };
    const before = receiver.received.length;
    const guarded = new WebhookSender({ allowPrivate: false, timeoutMs: 2000, lookup: resolvingTo({ ...names, ...translated }) });
    try {
      for (const url of urls) expect(await guarded.send(req(url))).toMatchObject({ refused: true, succeeded: false, statusCode: null });
      for (const host of Object.keys(translated)) {
        const r = await guarded.send(req(`http://${host}:${receiver.port}/hook`));
        expect(r).toMatchObject({ refused: true, succeeded: false, statusCode: null });
        expect(r.error).toMatch(/resolves to .*private, loopback or link-local/);
      }
      expect(receiver.received).toHaveLength(before);
    } finally {
      guarded.close();
    }
    const open = new WebhookSender({ allowPrivate: true, timeoutMs: 2000, lookup: resolvingTo(names) });
    try {
      for (const url of urls) expect(await open.send(req(url))).toMatchObject({ succeeded: true, statusCode: 200 });
      expect(receiver.received).toHaveLength(before + urls.length);
    } finally {
      open.close();
    }
  });

  it('reaches the same receiver when the operator allows private addresses', async () => {
    const sender = new WebhookSender({ allowPrivate: true, timeoutMs: 2000, lookup: resolvingTo({ 'hooks.merchant.example': '127.0.0.1' }) });
    try {
      const r = await sender.send(req(`http://hooks.merchant.example:${receiver.port}/hook`));
      expect(r).toMatchObject({ succeeded: true, statusCode: 200, refused: false });
      expect(receiver.received.map((x) => x.headers.host).at(-1)).toBe(`hooks.merchant.example:${receiver.port}`);
    } finally {
      sender.close();
    }
  });

  it('records a refusal as a failed attempt of the delivery', async () => {
    const m = await ctx.merchant();
    await ctx.endpoint(m.test, { url: `http://rebind.merchant.example:${receiver.port}/`, events: ['invoice.paid'] });
    const eventId = await ctx.event(m.test, 'invoice.paid', { invoice: {} });
    const before = receiver.received.length;
    await ctx.round(ctx.worker({ sender: { allowPrivate: false, lookup: resolvingTo({ 'rebind.merchant.example': '127.0.0.1' }) } }));
    const [d] = await ctx.deliveriesOfEvent(eventId);
    expect(d).toMatchObject({ status: 'pending', attempts: 1, lastStatusCode: null });
    expect(d!.lastError).toMatch(/^refused: rebind\.merchant\.example resolves to 127\.0\.0\.1/);
    expect(receiver.received).toHaveLength(before);
  });
});

describe('the connected address, checked again before a byte is written', () => {
  // The lookup's check refuses every name first, so the connector's own check is driven
  // directly: a loopback listener stands for a public name that reaches a private address.
  it.each(['http:', 'https:'])('%s a socket connected to a private address is refused and closed, nothing written (no TLS hello either)', async (protocol) => {
    let accepted!: (bytes: Promise<number>) => void;
    const connection = new Promise<Promise<number>>((resolve) => (accepted = resolve));
    const server = net.createServer((socket) => {
      let bytes = 0;
      socket.on('data', (chunk) => (bytes += chunk.length));
      socket.on('error', () => undefined);
      accepted(new Promise((resolve) => socket.on('close', () => resolve(bytes))));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    try {
      const connect = guardedConnector(buildConnector({ allowH2: false }));
      const err = await new Promise<Error | null>((resolve) =>
        connect({ hostname: '127.0.0.1', host: `127.0.0.1:${port}`, protocol, port: String(port) }, (e, socket) => {
          socket?.destroy();
          resolve(e);
        }),
      );
      expect(err).toMatchObject({ code: 'EWEBHOOKPRIVATE', message: expect.stringMatching(/^refused: 127\.0\.0\.1 resolves to 127\.0\.0\.1, a private/) });
      expect(await (await connection)).toBe(0);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('what goes out, and for how long', () => {
  it('sends exactly the spec headers (and what HTTP/1.1 itself needs), nothing that tells more', async () => {
    const receiver = await startReceiver();
    const sender = new WebhookSender({ allowPrivate: true, timeoutMs: 2000 });
    try {
      expect(await sender.send({ ...req(`${receiver.url}/hook?a=1`), body: '{"x":"é"}' })).toMatchObject({ succeeded: true, statusCode: 200, responseBody: 'ok' });
      const [r] = receiver.received;
      expect(r).toMatchObject({ method: 'POST', path: '/hook?a=1', body: '{"x":"é"}' });
      expect(Object.keys(r!.headers).sort()).toEqual(['connection', 'content-length', 'content-type', 'host', 'x-svc-delivery', 'x-svc-event', 'x-svc-signature', 'x-svc-timestamp']);
      expect(r!.headers).toMatchObject({ connection: 'keep-alive', 'content-length': '10', 'content-type': 'application/json', host: `127.0.0.1:${receiver.port}` });
    } finally {
      sender.close();
      await receiver.close();
    }
  });

  it('never follows a redirect: a 3xx is the answer, with its Retry-After', async () => {
    const receiver = await startReceiver();
    const elsewhere = await startReceiver();
    receiver.answer({ status: 307, body: 'moved', headers: { Location: `${elsewhere.url}/stolen`, 'Retry-After': '120' } });
    const sender = new WebhookSender({ allowPrivate: true, timeoutMs: 2000 });
    try {
      expect(await sender.send(req(receiver.url))).toMatchObject({ succeeded: false, statusCode: 307, responseBody: 'moved', retryAfter: '120', error: null });
      expect(elsewhere.received).toHaveLength(0);
    } finally {
      sender.close();
      await Promise.all([receiver.close(), elsewhere.close()]);
    }
  });

  it('gives the whole exchange one deadline: a TLS handshake never finished, an answer never sent', async () => {
    // Accepts connections, reads, and never writes a byte.
    const server = net.createServer((socket) => socket.on('error', () => undefined).resume());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    const sender = new WebhookSender({ allowPrivate: true, timeoutMs: 300 });
    try {
      for (const url of [`https://127.0.0.1:${port}/hook`, `http://127.0.0.1:${port}/hook`]) {
        const r = await sender.send(req(url));
        expect(r).toMatchObject({ succeeded: false, statusCode: null, refused: false, error: 'timed out after 300 ms' });
        expect(r.durationMs).toBeGreaterThanOrEqual(290);
        expect(r.durationMs).toBeLessThan(1500);
      }
    } finally {
      sender.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('/metrics', () => {
  it('shows attempts by outcome, latencies and queue depth in Prometheus format', async () => {
    const receiver = await startReceiver({ status: 500 });
    try {
      const metrics = new DeliveryMetrics(async () => ({ undispatched: 0, due: 3, scheduled: 2, inProcess: 1, oldestDueSeconds: 42.5, endpointsDisabled: 2 }));
      const m = await ctx.merchant();
      await ctx.endpoint(m.test, { url: receiver.url, events: ['invoice.paid'] });
      await ctx.event(m.test, 'invoice.paid', { invoice: {} });
      await ctx.round(ctx.worker({ metrics }));
      const app = buildWorkerApp({
        config: ctx.config,
        logger: createLogger('webhook-worker', 'silent'),
        db: ctx.db,
        redis: {} as never,
        metrics,
        isShuttingDown: () => false,
      });
      const res = await request(app).get('/metrics');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/plain/);
      expect(res.text).toMatch(/^webhook_attempts_total\{outcome="http_error"\} [1-9]\d*$/m);
      expect(res.text).toMatch(/^webhook_first_attempt_latency_seconds_count [1-9]\d*$/m);
      expect(res.text).toMatch(/^webhook_attempt_duration_seconds_bucket\{le="10"\} [1-9]\d*$/m);
      expect(res.text).toMatch(/^webhook_queue_depth\{state="due"\} 3$/m);
      expect(res.text).toMatch(/^webhook_queue_depth\{state="in_process"\} 1$/m);
      expect(res.text).toMatch(/^webhook_oldest_due_delivery_age_seconds 42.5$/m);
      expect(res.text).toMatch(/^webhook_endpoints_disabled 2$/m);
      expect(res.text).toMatch(/^# TYPE webhook_delivery_latency_seconds histogram$/m);
    } finally {
      await receiver.close();
    }
  });
});
