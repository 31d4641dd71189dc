import { spawnService } from '@pay/testing';

describe('the crypto process', () => {
  it('starts, answers its probes, and exits 0 on SIGTERM', async () => {
    const svc = await spawnService('crypto');
    try {
      const health = await fetch(`${svc.url}/healthz`);
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ status: 'ok', service: 'crypto' });
      const ready = await fetch(`${svc.url}/readyz`);
      expect(ready.status).toBe(200);
      expect(((await ready.json()) as { checks: unknown }).checks).toEqual({ postgres: 'ok', redis: 'ok' });
    } finally {
      expect(await svc.stop()).toBe(0);
    }
  });

  it('refuses to start with a bad configuration, saying what to fix', async () => {
    await expect(spawnService('crypto', { SECRETS_KEY: 'short', PORT: 'x' })).rejects.toThrow(/SECRETS_KEY must match pattern[\s\S]*PORT must be integer/);
  });
});
