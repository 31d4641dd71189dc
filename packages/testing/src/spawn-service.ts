import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');

export interface RunningService {
  url: string;
  logs: () => string;
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
    env: { ...process.env, LOG_LEVEL: 'info', PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // The last 64 KiB of output: enough to explain a failure, bounded under load.
  let output = '';
  let ready = false;
  const logs = () => output;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
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
