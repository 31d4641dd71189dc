import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { STALL_MS } from './stalls';

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('watchStalls', () => {
  it('sees a freeze of its whole process (SIGSTOP for 200 ms) as one stall of about that length', async () => {
    // The watcher in a process of its own, so the freeze can be made from outside: it says
    // "watching" once its thread runs, and on a line of input stops the watch and prints what it saw.
    const code = `
      const { watchStalls } = require(${JSON.stringify(join(__dirname, 'stalls.ts'))});
      watchStalls().then((watch) => {
        process.stdout.write('watching\\n');
        process.stdin.once('data', async () => { process.stdout.write(JSON.stringify(await watch.stop()) + '\\n'); process.exit(0); });
      });
    `;
    const child = spawn(process.execPath, ['--import', 'tsx', '-e', code], { stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    try {
      while (!out.includes('watching')) await pause(20);
      child.kill('SIGSTOP');
      await pause(200);
      child.kill('SIGCONT');
      await pause(100);
      child.stdin.write('stop\n');
      await once(child, 'exit');
      const seen = JSON.parse(out.split('\n')[1]!) as { longestMs: number; count: number };
      expect(seen.longestMs).toBeGreaterThanOrEqual(150);
      expect(seen.count).toBeGreaterThanOrEqual(1);
      expect(seen.longestMs).toBeGreaterThan(STALL_MS);
    } finally {
      child.kill('SIGKILL');
    }
  }, 30_000);
});
