import { spawnService } from './spawn-service';
import { eventually } from './eventually';

/**
 * The checks every service process must pass, run against its real entry point: it starts,
 * answers its probes, exits 0 on SIGTERM, and refuses a bad configuration with a message
 * that names each problem.
 */
export function describeServiceProcess(name: string): void {
  describe(`the ${name} process`, () => {
    it('starts, answers its probes, and exits 0 on SIGTERM', async () => {
      const svc = await spawnService(name);
      try {
        const health = await fetch(`${svc.url}/healthz`);
        expect(health.status).toBe(200);
        expect(await health.json()).toEqual({ status: 'ok', service: name });
        // Ready once Redis and Postgres answer: right after "listening", a loaded machine may
        // not have finished the first Redis handshake, and /readyz then says so (by design).
        await eventually(async () => {
          const ready = await fetch(`${svc.url}/readyz`);
          expect(((await ready.json()) as { checks: unknown }).checks).toEqual({ postgres: 'ok', redis: 'ok' });
          expect(ready.status).toBe(200);
        }, 5000);
      } finally {
        expect(await svc.stop()).toBe(0);
      }
    });

    it('refuses to start with a bad configuration, saying what to fix', async () => {
      await expect(spawnService(name, { SECRETS_KEY: 'short', PORT: 'x' })).rejects.toThrow(/SECRETS_KEY must match pattern[\s\S]*PORT must be integer/);
    });
  });
}
