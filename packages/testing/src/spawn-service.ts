import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { imageNodeOptions } from '@pay/build';
import { eventually } from './eventually';
import { stopWhenFileEnds } from './file-end';

const ROOT = join(__dirname, '..', '..', '..');

export interface RunningService {
  url: string;
  /** The last 64 KiB of output. */
  logs: () => string;
  /**
   * Every log line at warn level or above (pino level 40+) and every other line on stderr (an
   * uncaught error's stack, a runtime warning), however long the output ran.
   */
  problems: () => string[];
  /** Sends SIGTERM and resolves with the exit code. */
  stop: () => Promise<number | null>;
  child: ChildProcess;
}

/**
 * Starts a service's real entry point (services/<name>/src/main.ts under tsx, or `entry`, a
 * compiled bundle run by plain node) as its own process on a free port, and resolves once
 * its "listening" log line names the URL.
 */
export function spawnService(
  name: string,
  env: Record<string, string> = {},
  // Generous: a service started from TypeScript (tsx) on a loaded 2-core machine can take 20 s.
  timeoutMs = 60_000,
  nodeArgs: string[] = [],
  entry?: string,
): Promise<RunningService> {
  // `node --import tsx`, not the tsx CLI: the CLI runs the service as a child and relays
  // signals only once the child has reported its handlers, so an early SIGTERM kills it.
  const main = entry ? [entry] : ['--import', 'tsx', join(ROOT, 'services', name, 'src', 'main.ts')];
  const child = spawn(process.execPath, [...nodeArgs, ...main], {
    cwd: ROOT,
    // A bundle runs with the image's V8 settings, as production runs it.
    env: { ...process.env, LOG_LEVEL: 'info', PORT: '0', ...(entry ? { NODE_OPTIONS: imageNodeOptions() } : {}), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // The last 64 KiB of output: enough to explain a failure, bounded under load.
  let output = '';
  let ready = false;
  const logs = () => output;
  // Problem lines, whole, from all of the output: a multi-process test asserts on them.
  const problems: string[] = [];
  const scanner = (stderr: boolean) => {
    let partial = '';
    return (chunk: Buffer | null) => {
      const lines = (partial + (chunk ?? '\n')).split('\n');
      partial = lines.pop()!;
      for (const line of lines) {
        const level = logLevelOf(line);
        if (level >= 40 || (stderr && level === 0 && line.trim() !== '')) problems.push(line);
      }
    };
  };
  const scanOut = scanner(false);
  const scanErr = scanner(true);
  child.stdout!.on('data', scanOut).once('end', () => scanOut(null));
  child.stderr!.on('data', scanErr).once('end', () => scanErr(null));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  // A process the test never stopped (its beforeAll timed out before it had the handle) is
  // stopped when the file ends: SIGTERM, and SIGKILL if it has not exited 30 s later.
  const forget = stopWhenFileEnds(async () => {
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    await exited;
    clearTimeout(killer);
  });
  void exited.then(forget);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${name} did not start within ${timeoutMs} ms (it must log "listening" at info level):\n${output}`));
    }, timeoutMs);
    const onData = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-65_536);
      if (ready) return;
      const m = /"url":"(http:\/\/[^"]+)".*"msg":"listening"/.exec(output);
      if (m) {
        ready = true;
        clearTimeout(timer);
        resolve({
          url: m[1]!,
          logs,
          problems: () => [...problems],
          child,
          stop: () => {
            child.kill('SIGTERM');
            return exited;
          },
        });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code} before listening:\n${output}`));
    });
  });
}

const LEVELS: Record<string, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 };

/** The pino level of a JSON log line, labelled (as @pay/runtime's logger writes) or numeric; 0 for anything else, e.g. a stack trace on stderr. */
export function logLevelOf(line: string): number {
  const m = /^\{"level":(?:(\d+)|"(\w+)")/.exec(line);
  if (!m) return 0;
  return m[1] ? Number(m[1]) : (LEVELS[m[2]!] ?? 0);
}

/**
 * Resolves once every service's `/readyz` says 200, as a balancer sends nothing before: a
 * process listens before its first Postgres and Redis answers (on a Redis Cluster, before it
 * has learnt the slots), and a request in between gets 503. Rejects after `timeoutMs` naming
 * the last answers.
 */
export async function untilReady(services: { url: string }[], timeoutMs = 60_000): Promise<void> {
  await eventually(async () => {
    // No jest here: the bench waits with it too.
    const answers = await Promise.all(services.map((s) => fetch(`${s.url}/readyz`)));
    const notReady = answers.filter((a) => a.status !== 200);
    if (notReady.length) throw new Error(`not ready: ${notReady.map((a) => `${a.url} ${a.status}`).join(', ')}`);
  }, timeoutMs, 50);
}
