import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildWorkspace } from '@pay/build';
import { spawnService, type RunningService } from './spawn-service';
import { freePort } from './throwaway';

const ROOT = join(__dirname, '..', '..', '..');
/** Where test processes agree on who builds: a lock folder and the id of the run last built for. */
const STATE = join(ROOT, 'node_modules', '.cache', 'pay-test-build');
/** A lock older than this was left by a killed run. */
const STALE_LOCK_MS = 5 * 60_000;

let builtHere: Promise<unknown> | undefined;

/**
 * The bound for a hook or test that starts built services: the run's one build of every bundle
 * (the first file to need it builds, the others wait on the lock), then each start under
 * plain node. Minutes on this 2-core machine when others load it: a hook that gives up
 * earlier fails every test of its file (CI saw 60 s run out).
 */
export const BUILT_START_MS = 300_000;

/**
 * `pnpm build` into the checkout's own `dist/` folders, once per test run: jest's global
 * setup names the run (PAY_TEST_RUN), and the first test process to need the bundles builds
 * them while the others wait on a lock folder. Outside jest, once per process.
 */
export async function buildOncePerRun(): Promise<void> {
  const run = process.env.PAY_TEST_RUN;
  if (!run) {
    await (builtHere ??= buildWorkspace());
    return;
  }
  mkdirSync(STATE, { recursive: true });
  const lock = join(STATE, 'lock');
  const marker = join(STATE, 'built-for');
  const builtFor = () => (existsSync(marker) ? readFileSync(marker, 'utf8') : '');
  for (;;) {
    if (builtFor() === run) return;
    try {
      mkdirSync(lock);
    } catch {
      if (existsSync(lock) && Date.now() - statSync(lock).mtimeMs > STALE_LOCK_MS) rmSync(lock, { recursive: true, force: true });
      await new Promise((r) => setTimeout(r, 200));
      continue;
    }
    try {
      if (builtFor() !== run) {
        await buildWorkspace();
        writeFileSync(marker, run);
      }
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}

/**
 * A service as `scripts/stack.sh` starts it: the bundles of `pnpm build` (see
 * buildOncePerRun), then `node services/<name>/dist/main.js` from the checkout's root, with
 * the script's settings (webhooks may point at this machine; NODE_ENV left at its default).
 * It listens on a port chosen first, and PUBLIC_URL names it, so the links it hands out
 * (payment links, QR payloads) lead back to it. `env` adds to or overrides that.
 */
export async function spawnBuiltService(name: string, env: Record<string, string> = {}): Promise<RunningService> {
  await buildOncePerRun();
  const port = await freePort();
  const entry = join(ROOT, 'services', name, 'dist', 'main.js');
  return spawnService(
    name,
    { NODE_ENV: 'development', ALLOW_PRIVATE_WEBHOOK_URLS: 'true', PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}`, ...env },
    60_000,
    [],
    entry,
  );
}
