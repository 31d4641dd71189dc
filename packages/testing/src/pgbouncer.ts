import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stopWhenFileEnds } from './file-end';
import { freePort } from './throwaway';

/** Each service's Postgres schema: its PgBouncer database entry sets it as the search_path. */
export const SERVICE_SCHEMAS: Readonly<Record<string, string>> = { crypto: 'crypto', invoicing: 'invoicing', 'webhook-worker': 'webhooks' };

const BIN = process.env.PGBOUNCER_BIN ?? (existsSync('/usr/sbin/pgbouncer') ? '/usr/sbin/pgbouncer' : 'pgbouncer');

export interface PgBouncerOptions {
  /** Server connections per database entry (PgBouncer's default_pool_size); 10 unless told. */
  poolSize?: number;
  /** The schemas to give a database entry each (`<database>_<schema>`); every service's by default. */
  schemas?: string[];
}

/**
 * Debian's `pgbouncer` (1.18) in transaction pooling in front of `postgresUrl`, on a private
 * port of loopback, as services meet it where Postgres is managed: one database entry per
 * service schema, `<database>_<schema>`, whose connect_query sets the search_path (PgBouncer
 * 1.18 refuses the `options` startup parameter a direct pool sets it with), and one entry with
 * the database's own name and no search_path. Authentication is trust (loopback only; PgBouncer
 * still needs the user in its auth_file). PgBouncer refuses to run as root: as root it runs as
 * the `postgres` user, as the throwaway Postgres does.
 *
 * The port is free at start and kept across `restart`; PGBOUNCER_PORTS=<first>-<last> keeps it
 * in a range (sessions sharing the machine divide ports between them).
 */
export async function startPgBouncer(postgresUrl: string, opts: PgBouncerOptions = {}) {
  const upstream = new URL(postgresUrl);
  const database = decodeURIComponent(upstream.pathname.slice(1));
  const user = decodeURIComponent(upstream.username) || 'postgres';
  const schemas = opts.schemas ?? [...new Set(Object.values(SERVICE_SCHEMAS))];
  const dir = mkdtempSync(join(tmpdir(), 'pay-pgbouncer-'));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) chmodSync(dir, 0o755);
  const server = `host=${upstream.hostname} port=${upstream.port || 5432} dbname=${database}`;
  const entries = [`${database} = ${server}`, ...schemas.map((s) => `${database}_${s} = ${server} connect_query='SET search_path TO ${s}'`)];
  const write = (file: string, text: string) => {
    writeFileSync(join(dir, file), text);
    if (asRoot) chmodSync(join(dir, file), 0o644);
  };
  write('userlist.txt', `"${user}" ""\n`);
  const port = await pickPort();
  write(
    'pgbouncer.ini',
    [
      '[databases]',
      ...entries,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'userlist.txt')}`,
      'pool_mode = transaction',
      `default_pool_size = ${opts.poolSize ?? 10}`,
      'max_client_conn = 1000',
      // A server connection that breaks is replaced at once, not after the default 15 s.
      'server_login_retry = 1',
      '',
    ].join('\n'),
  );
  let child: ChildProcess | undefined;
  let output = '';
  const start = async () => {
    const args = [...(asRoot ? ['-u', 'postgres'] : []), join(dir, 'pgbouncer.ini')];
    const c = spawn(BIN, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child = c;
    const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-65_536));
    c.stdout!.on('data', keep);
    c.stderr!.on('data', keep);
    const exited = new Promise<never>((_, reject) => c.once('exit', (code) => reject(new Error(`pgbouncer exited with ${code}:\n${output}`))));
    exited.catch(() => undefined);
    for (let i = 0; i < 200; i++) {
      if (await listening(port)) return;
      await Promise.race([new Promise((r) => setTimeout(r, 25)), exited]);
    }
    throw new Error(`pgbouncer on ${port} did not listen within 5 s:\n${output}`);
  };
  const kill = (signal: NodeJS.Signals) =>
    new Promise<void>((resolve) => {
      const c = child;
      if (!c || c.exitCode !== null || c.signalCode !== null) return resolve();
      c.once('exit', () => resolve());
      c.kill(signal);
    });
  const forget = stopWhenFileEnds(() => kill('SIGKILL'));
  try {
    await start();
  } catch (err) {
    await kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    forget();
    throw err;
  }
  const urlOf = (name: string) => Object.assign(new URL(postgresUrl), { host: `127.0.0.1:${port}`, pathname: `/${name}` }).toString();
  const urlFor = (schema: string): string => {
    if (!schemas.includes(schema)) throw new Error(`startPgBouncer has no database entry for schema ${schema}: pass it in opts.schemas`);
    return urlOf(`${database}_${schema}`);
  };
  return {
    port,
    /** Through PgBouncer, with the search_path of `schema` (a service's). */
    urlFor,
    /** Through PgBouncer, to the database with no search_path of a service's. */
    url: urlOf(database),
    /** A service's database variables as an operator sets them behind PgBouncer (README "PgBouncer"). */
    envFor(service: string): Record<string, string> {
      const schema = SERVICE_SCHEMAS[service];
      if (!schema) throw new Error(`no schema known for service ${service} (SERVICE_SCHEMAS)`);
      return { DATABASE_URL: urlFor(schema), DATABASE_DIRECT_URL: postgresUrl, DATABASE_POOLING: 'transaction' };
    },
    /** PgBouncer's output (its log), the last 64 KiB. */
    logs: () => output,
    /**
     * PgBouncer killed (SIGKILL: every client and server connection cut, transactions in
     * flight lost, as when its pod dies) and started again on the same port after `downMs`.
     */
    async restart(downMs = 0) {
      await kill('SIGKILL');
      if (downMs > 0) await new Promise((r) => setTimeout(r, downMs));
      await start();
    },
    async stop() {
      forget();
      await kill('SIGINT');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export type PgBouncer = Awaited<ReturnType<typeof startPgBouncer>>;

/** A free port, within PGBOUNCER_PORTS (`<first>-<last>`) when it is set. */
async function pickPort(): Promise<number> {
  const range = process.env.PGBOUNCER_PORTS;
  if (!range) return freePort();
  const m = /^(\d+)-(\d+)$/.exec(range);
  if (!m) throw new Error(`PGBOUNCER_PORTS must be <first>-<last>, e.g. 6500-6599; got ${range}`);
  const [first, last] = [Number(m[1]), Number(m[2])];
  const offset = Math.floor(Math.random() * (last - first + 1));
  for (let i = 0; i <= last - first; i++) {
    const port = first + ((offset + i) % (last - first + 1));
    if (!(await listening(port))) return port;
  }
  throw new Error(`no free port in PGBOUNCER_PORTS ${range}`);
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ host: '127.0.0.1', port });
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });
}
