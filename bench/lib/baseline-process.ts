import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { imageNodeOptions } from '@pay/build';
import type { BenchConfig } from './config';

export interface BaselineProcess {
  url: string;
  pid?: number;
  stop(): Promise<number | null>;
}

const ENTRY = join(__dirname, '..', 'baseline', 'app.ts');
const START_TIMEOUT_MS = 20_000;

/** Starts bench/baseline/app.ts as its own process, as the services run, and resolves with its URL. */
export function startBaseline(config: BenchConfig): Promise<BaselineProcess> {
  const child = spawn(process.execPath, [...config.baselineNodeArgs, '--import', 'tsx', ENTRY], {
    // The services' own V8 settings (the image's, which spawnService gives the bundles), so
    // the ratio compares request paths, not heap sizes.
    env: { ...process.env, DATABASE_URL: config.databaseUrl, PORT: '0', NODE_ENV: 'production', NODE_OPTIONS: imageNodeOptions() },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the baseline app did not start within ${START_TIMEOUT_MS} ms:\n${output}`));
    }, START_TIMEOUT_MS);
    const onData = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-16_384);
      const m = /listening (http:\/\/\S+)/.exec(output);
      if (!m) return;
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      resolve({
        url: m[1]!,
        pid: child.pid,
        stop: () => {
          child.kill('SIGTERM');
          return exited;
        },
      });
    };
    child.stdout!.on('data', onData);
    // Errors (a failed query answers 500) go to stderr: show them as they come.
    child.stderr!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      process.stderr.write(`[baseline] ${chunk}`);
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the baseline app exited with ${code} before listening:\n${output}`));
    });
  });
}
