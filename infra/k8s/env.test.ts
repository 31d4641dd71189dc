import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { buildOncePerRun, eventually, freePort, idleStackEnv } from '@pay/testing';
import { CryptoConfigSchema } from '../../services/crypto/src/config';
import { InvoicingConfigSchema } from '../../services/invoicing/src/load-config';
import { WorkerConfigSchema } from '../../services/webhook-worker/src/config';
import { containerEnv, metricNamesIn, readManifests, renderKustomization, rulesOf, type Container, type Manifest } from './render';

/**
 * Each Deployment's container started with exactly the environment the manifests give it: the
 * rendered ConfigMap, the example Secrets (secret.example.yaml) and its own env, so a variable
 * missing from them or misspelled fails here, not in a cluster. What the test changes, and why:
 * - DATABASE_URL and REDIS_URL: this test's database and Redis (a fresh, idle database: nothing
 *   waits to be sent to the example SMTP or S3 hosts, which are never contacted);
 * - PORT and HOST: a free port on loopback;
 * - values the operator fills (`<...>` in secret.example.yaml): SECRETS_KEY gets the tests' key;
 *   the live chain's (EVM RPC URLs, the deposit xpub) are left out, because an RPC URL connects
 *   to its chain at start (the devnet tests cover that path; the payout key's file, which only
 *   crypto-workers names, is read only there). Any other placeholder fails the test.
 */
const ROOT = path.join(__dirname, '..', '..');
const LIVE_CHAIN = new Set(['EVM_RPC_URL_ETHEREUM', 'EVM_RPC_URL_BSC', 'DEPOSIT_XPUB']);

const rendered = readManifests(renderKustomization(__dirname));
const examples = readManifests(readFileSync(path.join(__dirname, 'secret.example.yaml'), 'utf8'));
const all = [...rendered.objects, ...examples.objects];
const dataOf = (kind: string) => new Map(all.filter((o) => o.kind === kind).map((o) => [o.metadata!.name!, { ...((o.data as object) ?? {}), ...((o.stringData as object) ?? {}) }]));
const configMaps = dataOf('ConfigMap');
const secrets = dataOf('Secret');
const containers = rendered.objects
  .filter((o): o is Manifest & { spec: { template: { spec: { containers: Container[] } } } } => o.kind === 'Deployment')
  .flatMap((d) => d.spec.template.spec.containers.map((c) => ({ deployment: d.metadata!.name!, env: containerEnv(c, configMaps, secrets) })));

/** The metrics the alerts labelled `service: <name>` select, by service: that service's processes must export each one. */
const alertMetrics = new Map<string, Set<string>>();
for (const { rule } of rulesOf(rendered.objects)) {
  const service = rule.labels?.service;
  if (service) alertMetrics.set(service, new Set([...(alertMetrics.get(service) ?? []), ...metricNamesIn(String(rule.expr)).names]));
}

/** The metric names a /metrics text declares (`# TYPE`), as PromQL selects them: a histogram's `_bucket`, `_sum`, `_count`. */
function exportedNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    if (type === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(name + s);
    else if (type === 'summary') for (const s of ['', '_sum', '_count']) names.add(name + s);
    else names.add(name!);
  }
  return names;
}

function fill(env: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    // `<what to fill>`, not an address in angle brackets (MAIL_FROM's).
    const placeholder = /<[^<>@]+>/.test(value);
    if (placeholder && LIVE_CHAIN.has(name)) continue;
    if (placeholder && name === 'SECRETS_KEY') out[name] = process.env.SECRETS_KEY!;
    else if (placeholder) throw new Error(`${name} is a placeholder (${value}) this test does not know how to fill: say here why it may be`);
    else out[name] = value;
  }
  return out;
}

/** `node services/<SERVICE>/dist/main.js` with only PATH and `env`: nothing leaks in from the test's own environment. */
function start(env: Record<string, string>): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, [path.join(ROOT, 'services', env.SERVICE!, 'dist', 'main.js')], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const keep = (c: Buffer) => (out = (out + c.toString()).slice(-20_000));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  return { child, output: () => out };
}

describe('each Deployment with exactly the environment of the ConfigMap and Secret', () => {
  let idle: { DATABASE_URL: string; REDIS_URL: string };
  beforeAll(async () => {
    [idle] = await Promise.all([idleStackEnv('k8s_env'), buildOncePerRun()]);
  }, 180_000);

  it('knows the alerts labelled with a service, whose metrics each Deployment of it is checked to export', () => {
    expect([...(alertMetrics.get('invoicing') ?? [])]).toEqual(expect.arrayContaining(['invoicing_acquirer_notifications_total', 'invoicing_acquirer_calls_total', 'invoicing_acquirer_payment_oldest_unheard_seconds']));
  });

  it('covers every Deployment that runs a service', () => {
    expect(containers.map((c) => `${c.deployment}:${c.env.SERVICE}`).sort()).toEqual([
      'crypto-workers:crypto',
      'crypto:crypto',
      'invoicing-workers:invoicing',
      'invoicing:invoicing',
      'webhook-worker:webhook-worker',
    ]);
  });

  it('gives no variable that its service does not read: a misspelled optional one would be ignored, not refused', () => {
    const reads: Record<string, Set<string>> = {
      invoicing: new Set(Object.keys(InvoicingConfigSchema.properties)),
      crypto: new Set(Object.keys(CryptoConfigSchema.properties)),
      'webhook-worker': new Set(Object.keys(WorkerConfigSchema.properties)),
    };
    // Read outside the config schemas: the image's entry point picks the service by SERVICE.
    const alsoRead: Record<string, string[]> = { invoicing: ['SERVICE'], crypto: ['SERVICE'], 'webhook-worker': ['SERVICE'] };
    // One ConfigMap and one Secret serve every service (envFrom): a key must be read by one of them,
    // or be one a Deployment maps onto a variable (INVOICING_PUBLIC_URL → PUBLIC_URL).
    const deployments = rendered.objects.filter((o) => o.kind === 'Deployment') as (Manifest & { spec: { template: { spec: { containers: Container[] } } } })[];
    const mapped = deployments.flatMap((d) => d.spec.template.spec.containers.flatMap((c) => (c.env ?? []).map((e) => e.valueFrom?.configMapKeyRef?.key ?? e.valueFrom?.secretKeyRef?.key)));
    const anyService = new Set([...Object.values(reads).flatMap((r) => [...r]), ...Object.values(alsoRead).flat(), ...mapped.filter((k): k is string => !!k)]);
    const unread = containers.flatMap((c) => Object.keys(c.env).filter((name) => !anyService.has(name)).map((name) => `${c.deployment}: ${name}`));
    expect(unread).toEqual([]);
    // A Deployment's own env entries name variables its service reads.
    for (const d of deployments) {
      for (const c of d.spec.template.spec.containers) {
        const service = c.env!.find((e) => e.name === 'SERVICE')!.value!;
        const own = (c.env ?? []).map((e) => e.name).filter((name) => !reads[service]!.has(name) && !alsoRead[service]!.includes(name));
        expect({ deployment: d.metadata!.name, unread: own }).toEqual({ deployment: d.metadata!.name, unread: [] });
      }
    }
  });

  it('crypto-workers alone names the payout key’s file, and the crypto API given it refuses to start, saying what to fix', async () => {
    const holders = containers.filter((c) => 'PAYOUT_PRIVATE_KEY_FILE' in c.env || 'PAYOUT_PRIVATE_KEY' in c.env).map((c) => c.deployment);
    expect(holders).toEqual(['crypto-workers']);
    const workers = containers.find((c) => c.deployment === 'crypto-workers')!.env;
    const api = containers.find((c) => c.deployment === 'crypto')!.env;
    const proc = start({ ...fill(api), ...idle, PAYOUT_PRIVATE_KEY_FILE: workers.PAYOUT_PRIVATE_KEY_FILE!, PORT: String(await freePort()), HOST: '127.0.0.1' });
    const code = await new Promise<number | null>((r) => proc.child.once('exit', r));
    expect({ code, output: proc.output() }).toEqual({ code: 1, output: expect.stringMatching(/PAYOUT_PRIVATE_KEY_FILE is set on a process that serves the API \(SERVE_API is true\)/) });
  }, 120_000);

  it.each(containers.map((c) => [c.deployment, c.env] as const))('%s starts and answers /readyz 200', async (deployment, env) => {
    const port = await freePort();
    const proc = start({ ...fill(env), ...idle, PORT: String(port), HOST: '127.0.0.1' });
    const exited = new Promise<number | null>((r) => proc.child.once('exit', r));
    try {
      await eventually(
        async () => {
          if (proc.child.exitCode !== null) throw new Error(`${deployment} exited with ${proc.child.exitCode}:\n${proc.output()}`);
          const res = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => null);
          expect(res?.status).toBe(200);
        },
        60_000,
        200,
      ).catch((err: Error) => {
        throw new Error(`${err.message}\n--- ${deployment} output ---\n${proc.output()}`);
      });
      // Every metric its service's alerts name is on its /metrics (validate.mjs checks the same from the bundles).
      const exported = exportedNames(await (await fetch(`http://127.0.0.1:${port}/metrics`)).text());
      expect({ deployment, missing: [...(alertMetrics.get(env.SERVICE!) ?? [])].filter((n) => !exported.has(n)) }).toEqual({ deployment, missing: [] });
      // What the Deployment says it runs: the API pods no workers, the worker pods theirs (the
      // production logger writes in blocks, so its line may come a moment after readiness).
      if (env.SERVICE !== 'webhook-worker') {
        await eventually(() => expect(proc.output()).toMatch(new RegExp(`"workers":${env.RUN_WORKERS === 'false' ? 'false' : 'true'}\\b.*"msg":"started"`)), 10_000, 100);
        // And by what it exports: queue depth comes only from processes that consume the queues.
        const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
        if (env.RUN_WORKERS === 'false') {
          expect(metrics).not.toMatch(/^queue_jobs\{/m);
        } else {
          expect(metrics).toMatch(new RegExp(`^queue_jobs\\{queue="${env.SERVICE === 'invoicing' ? 'invoicing-receipt-checks' : 'crypto-withdrawals'}",state="waiting"\\} 0$`, 'm'));
        }
      }
    } finally {
      proc.child.kill('SIGTERM');
      await exited;
    }
  }, 120_000);
});
