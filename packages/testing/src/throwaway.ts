import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const PG_BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';

/** A port nobody listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/**
 * A PostgreSQL server of the test's own (initdb into a temp folder, pg_ctl on a free port),
 * for tests that restart or kill the database; the machine's shared server is never touched.
 * Postgres refuses to run as root, so as root the server runs as the `postgres` user.
 * `maxConnections` (100) must cover every pool of every process the test starts.
 */
export async function startThrowawayPostgres(database = 'throwaway', opts: { maxConnections?: number } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'pay-pg-'));
  const data = join(dir, 'data');
  const port = await freePort();
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    chmodSync(dir, 0o755);
    chownSync(dir, Number(execFileSync('id', ['-u', 'postgres']).toString().trim()), Number(execFileSync('id', ['-g', 'postgres']).toString().trim()));
  }
  const command = (bin: string, args: string[]): [string, string[]] =>
    asRoot ? ['runuser', ['-u', 'postgres', '--', join(PG_BIN, bin), ...args]] : [join(PG_BIN, bin), args];
  const run = (bin: string, args: string[]) => execFileSync(...command(bin, args), { stdio: 'pipe', cwd: dir });
  run('initdb', ['-D', data, '-U', 'root', '--auth=trust', '--no-sync', '-E', 'UTF8']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=${opts.maxConnections ?? 100}`;
  const ctlArgs = (...args: string[]) => ['-D', data, '-l', join(dir, 'log'), '-o', options, '-w', '-t', '60', ...args];
  const pgCtl = (...args: string[]) => run('pg_ctl', ctlArgs(...args));
  // Without blocking the test's event loop: its clients keep sending while the server is away.
  const pgCtlAsync = (...args: string[]) =>
    new Promise<void>((resolve, reject) => execFile(...command('pg_ctl', ctlArgs(...args)), { cwd: dir }, (err) => (err ? reject(err) : resolve())));
  pgCtl('start');
  run('createdb', ['-h', '127.0.0.1', '-p', String(port), '-U', 'root', database]);
  return {
    url: `postgresql://root@127.0.0.1:${port}/${database}`,
    port,
    /** A clean restart (connections are cut, the data stays), down for at least `downMs`. */
    async restart(downMs = 0) {
      await pgCtlAsync('stop', '-m', 'fast');
      if (downMs > 0) await new Promise((r) => setTimeout(r, downMs));
      await pgCtlAsync('start');
    },
    stop() {
      try {
        pgCtl('stop', '-m', 'immediate');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/** A Redis server of the test's own on a free port, keeping nothing on disk. */
export async function startThrowawayRedis() {
  const port = await freePort();
  let child: ChildProcess;
  const start = async () => {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    for (let i = 0; i < 200; i++) {
      try {
        execFileSync('redis-cli', ['-p', String(port), 'ping'], { stdio: 'pipe' });
        return;
      } catch {
        await new Promise((r) => setTimeout(r, 25));
      }
    }
    throw new Error(`redis-server on ${port} did not start`);
  };
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    /** FLUSHALL, then a restart: everything Redis held is gone. */
    async flushAndRestart() {
      execFileSync('redis-cli', ['-p', String(port), 'flushall'], { stdio: 'pipe' });
      await stop();
      await start();
    },
    stop,
  };
}
