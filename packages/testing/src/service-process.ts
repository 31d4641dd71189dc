import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildServiceProcess } from '@pay/build';
import { eventually } from './eventually';
import { idleStackEnv } from './idle-stack';
import { spawnService, type RunningService } from './spawn-service';

export interface ServiceProcessOptions {
  /** Packages the compiled process must not load at all: it never uses them. */
  neverLoads?: string[];
  /** Packages loaded only when a path is first asked for (e.g. Swagger UI for /docs). */
  loadsOnDemand?: { path: string; package: string }[];
}

const LOADED_PACKAGES = join(__dirname, 'loaded-packages.cjs');

/** The packages from node_modules the process has loaded so far (see loaded-packages.cjs). */
async function loadedPackages(svc: RunningService): Promise<string[]> {
  const before = svc.logs().split('loaded-packages ').length;
  svc.child.kill('SIGUSR2');
  const line = await eventually(() => {
    const parts = svc.logs().split('loaded-packages ');
    if (parts.length <= before) throw new Error('the process did not report its loaded packages');
    return parts[parts.length - 1]!.split('\n')[0]!;
  });
  return JSON.parse(line) as string[];
}

async function expectProbesAnswer(svc: RunningService, name: string): Promise<void> {
  const health = await fetch(`${svc.url}/healthz`);
  expect(health.status).toBe(200);
  expect(await health.json()).toEqual({ status: 'ok', service: name });
  // Ready once Redis and Postgres answer: right after "listening", a loaded machine may not
  // have finished the first Redis handshake, and /readyz then says so (by design).
  await eventually(async () => {
    const ready = await fetch(`${svc.url}/readyz`);
    expect(((await ready.json()) as { checks: unknown }).checks).toEqual({ postgres: 'ok', redis: 'ok' });
    expect(ready.status).toBe(200);
  }, 5000);
}

/**
 * The checks every service process must pass, run against its real entry point: it starts,
 * answers its probes, exits 0 on SIGTERM, and refuses a bad configuration with a message
 * that names each problem. Its compiled bundle (what `pnpm build` and the image run) does
 * the same under plain node and loads nothing it does not use.
 */
/** A process test's bound: a start from TypeScript on a loaded 2-core machine, its probes and its stop. */
const STARTUP_TEST_MS = 120_000;

export function describeServiceProcess(name: string, options: ServiceProcessOptions = {}): void {
  describe(`the ${name} process`, () => {
    it('starts, answers its probes, and exits 0 on SIGTERM', async () => {
      const svc = await spawnService(name);
      try {
        await expectProbesAnswer(svc, name);
      } finally {
        expect(await svc.stop()).toBe(0);
      }
    }, STARTUP_TEST_MS);

    it('refuses to start with a bad configuration, saying what to fix', async () => {
      await expect(spawnService(name, { SECRETS_KEY: 'short', PORT: 'x' })).rejects.toThrow(/SECRETS_KEY must match pattern[\s\S]*PORT must be integer/);
    }, STARTUP_TEST_MS);

    describe('compiled', () => {
      let outDir: string;
      let entry: string;
      let idleEnv: Record<string, string>;
      beforeAll(async () => {
        outDir = mkdtempSync(join(tmpdir(), `pay-build-${name}-`));
        [entry, idleEnv] = await Promise.all([buildServiceProcess(name, outDir).then((b) => b.outFile), idleStackEnv(name)]);
      }, STARTUP_TEST_MS);
      afterAll(() => rmSync(outDir, { recursive: true, force: true }));

      it('runs under plain node, answers its probes, loads only what it uses, and exits 0 on SIGTERM', async () => {
        const svc = await spawnService(name, { ...idleEnv, NODE_ENV: 'production' }, 60_000, ['--require', LOADED_PACKAGES], entry);
        try {
          await expectProbesAnswer(svc, name);
          const idle = await loadedPackages(svc);
          expect(idle).toEqual(expect.arrayContaining(['express', 'pino']));
          for (const pkg of options.neverLoads ?? []) expect(idle).not.toContain(pkg);
          for (const { path, package: pkg } of options.loadsOnDemand ?? []) {
            expect(idle).not.toContain(pkg);
            expect((await fetch(`${svc.url}${path}`)).status).toBe(200);
            expect(await loadedPackages(svc)).toContain(pkg);
          }
        } finally {
          expect(await svc.stop()).toBe(0);
        }
      }, STARTUP_TEST_MS);
    });
  });
}
