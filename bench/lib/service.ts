import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawnService, untilReady, type RunningService } from '@pay/testing';
import { buildServiceProcess } from '@pay/build';

const built = new Map<string, Promise<string>>();

/**
 * Starts a service as production runs it: its esbuild bundle (`pnpm build`) under plain
 * node, not tsx. Each service is built once per bench run, into a temp dir. Resolves once
 * `/readyz` says 200, as a balancer would send nothing before: a process listens before its
 * Redis client is ready, which on a Redis Cluster (slots to learn from the nodes) is long
 * enough for a first signed request to get 503.
 */
export async function startService(name: string, env: Record<string, string>, nodeArgs: string[] = []): Promise<RunningService> {
  let bundle = built.get(name);
  if (!bundle) {
    bundle = buildServiceProcess(name, mkdtempSync(path.join(tmpdir(), `bench-${name}-`))).then((b) => b.outFile);
    built.set(name, bundle);
  }
  const svc = await spawnService(name, env, 20_000, nodeArgs, await bundle);
  try {
    await untilReady([svc], 30_000);
  } catch (err) {
    await svc.stop();
    throw err;
  }
  return svc;
}
