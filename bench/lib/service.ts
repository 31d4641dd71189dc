import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawnService, type RunningService } from '@pay/testing';
import { buildServiceProcess } from '@pay/build';

const built = new Map<string, Promise<string>>();

/**
 * Starts a service as production runs it: its esbuild bundle (`pnpm build`) under plain
 * node, not tsx. Each service is built once per bench run, into a temp dir.
 */
export function startService(name: string, env: Record<string, string>, nodeArgs: string[] = []): Promise<RunningService> {
  let bundle = built.get(name);
  if (!bundle) {
    bundle = buildServiceProcess(name, mkdtempSync(path.join(tmpdir(), `bench-${name}-`))).then((b) => b.outFile);
    built.set(name, bundle);
  }
  return bundle.then((entry) => spawnService(name, env, 20_000, nodeArgs, entry));
}
