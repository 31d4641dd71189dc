import { signedHeaders } from '@pay/auth';
import { spawnService, eventually, type RunningService } from '@pay/testing';

/**
 * Keys are cached in each process (for at most one second), so revocation and
 * secret regeneration must reach every process of every service: two real crypto processes
 * and an invoicing process, caches warm on all, the change made through one, its effect
 * checked on the others.
 */
let a: RunningService;
let b: RunningService;
let inv: RunningService;
beforeAll(async () => {
  [a, b, inv] = await Promise.all([
    spawnService('crypto', { RUN_WORKERS: 'false' }),
    spawnService('crypto', { RUN_WORKERS: 'false' }),
    spawnService('invoicing', { RUN_WORKERS: 'false' }),
  ]);
}, 90_000); // three processes started from TypeScript at once
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop(), inv?.stop()]);
});

async function call(svc: RunningService, path: string, init: { method?: string; key: string; body?: unknown; secret?: string; style?: 'crypto' | 'v2' }) {
  const body = init.body === undefined ? '' : JSON.stringify(init.body);
  const method = init.method ?? 'GET';
  const headers: Record<string, string> = { 'X-Api-Key': init.key, ...(body ? { 'Content-Type': 'application/json' } : {}) };
  if (init.secret) Object.assign(headers, signedHeaders(init.style ?? 'crypto', init.secret, { method, path: path.split('?')[0]!, body }));
  const res = await fetch(`${svc.url}${path}`, { method, headers, body: body || undefined });
  return { status: res.status, body: (await res.json()) as any };
}

async function merchant() {
  const email = `kc-${Date.now()}-${Math.random()}@example.test`;
  const reg = await fetch(`${a.url}/api/v1/merchants/register`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ companyName: 'K', email, address: 'x' }),
  });
  const d = ((await reg.json()) as any).data;
  return { live: d.apiKey.apiKey as string, secret: d.apiKey.hmacSecret as string };
}

/** Milliseconds until `check` holds on the other process, polling every 10 ms. */
async function msUntil(check: () => Promise<boolean>): Promise<number> {
  const start = Date.now();
  await eventually(async () => {
    if (!(await check())) throw new Error('not yet');
  }, 5000, 10);
  return Date.now() - start;
}

it('a revoked key is refused by every process within one second', async () => {
  const m = await merchant();
  const second = await call(a, '/api/v1/api-keys', { method: 'POST', key: m.live, body: { name: 'to revoke', isTestKey: false } });
  const key = second.body.data.apiKey as string;
  const invoices = () => call(inv, '/api/v2/invoices?limit=1', { key, secret: m.secret, style: 'v2' });
  // Warm every cache.
  for (const svc of [a, b]) expect((await call(svc, '/api/v1/merchants/profile', { key })).status).toBe(200);
  expect((await call(b, '/api/v1/merchants/profile', { key })).status).toBe(200);
  expect((await invoices()).status).toBe(200);

  const revoked = await call(a, `/api/v1/api-keys/${second.body.data.id}`, { method: 'DELETE', key: m.live });
  expect(revoked.status).toBe(200);
  const elapsed = await msUntil(async () => (await call(b, '/api/v1/merchants/profile', { key })).status === 401 && (await invoices()).status === 401);
  expect(elapsed).toBeLessThan(1000);
  expect((await call(a, '/api/v1/merchants/profile', { key })).body.error.message).toMatch(/revoked/);
});

it('a regenerated HMAC secret stops verifying in every process within one second, and the new one works', async () => {
  const m = await merchant();
  const webhook = (svc: RunningService, secret: string) =>
    call(svc, '/api/v1/merchants/webhook', { method: 'PUT', key: m.live, secret, body: { webhookUrl: `https://shop.test/${Math.random()}` } });
  const invoices = (secret: string) => call(inv, '/api/v2/invoices?limit=1', { key: m.live, secret, style: 'v2' });
  for (const svc of [a, b]) expect((await webhook(svc, m.secret)).status).toBe(200);
  expect((await invoices(m.secret)).status).toBe(200);

  const regenerated = await call(a, '/api/v1/api-keys/regenerate', { method: 'POST', key: m.live, secret: m.secret });
  expect(regenerated.status).toBe(200);
  const fresh = regenerated.body.data.hmacSecret as string;
  const elapsed = await msUntil(async () => (await webhook(b, m.secret)).status === 401 && (await invoices(m.secret)).status === 401);
  expect(elapsed).toBeLessThan(1000);
  expect((await webhook(b, m.secret)).body.error.code).toBe('INVALID_SIGNATURE');
  expect((await invoices(m.secret)).body.error.code).toBe('INVALID_SIGNATURE');
  expect((await invoices(fresh)).status).toBe(200);
  expect((await webhook(b, fresh)).status).toBe(200);
  expect((await webhook(a, fresh)).status).toBe(200);
});
