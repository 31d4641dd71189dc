import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');
const FIXTURES = join(ROOT, 'services', 'invoicing', 'test', 'file-end');

/**
 * Files of one jest worker share its database and Redis db and run one after another. A file
 * that leaves an app or a service process running (its beforeAll timed out on a loaded
 * machine, so its afterAll had nothing to close) had its receipt worker take the next file's
 * checks and read them from its own folder: REJECTED, "ENOENT /tmp/pay-receipts-…". Two
 * fixture files in one jest process: the first leaves both running, the second must find
 * neither.
 */
it('what a test file leaves running is stopped before the next file of its worker starts', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pay-file-end-'));
  const pidFile = join(dir, 'pid');
  try {
    const out = await new Promise<{ code: number; output: string }>((resolve) => {
      const jest = join(ROOT, 'node_modules', '.bin', 'jest');
      execFile(
        jest,
        ['--runInBand', '--forceExit', '--ci', '--rootDir', ROOT, '--testMatch', `${FIXTURES}/*.fixture.ts`, '--testSequencer', join(FIXTURES, 'sequencer.js')],
        { cwd: ROOT, env: { ...process.env, FILE_END_PID_FILE: pidFile }, timeout: 280_000 },
        (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, output: stdout + stderr }),
      );
    });
    expect(out.output).toMatch(/2 passed, 0 failed/);
    expect(out.code).toBe(0);
  } finally {
    // Before the fix the service process outlived the run: stop it here.
    try {
      process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGKILL');
    } catch {
      // gone, as it should be
    }
    rmSync(dir, { recursive: true, force: true });
  }
}, 300_000);
