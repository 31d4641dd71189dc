import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { CryptoConfigSchema } from '../services/crypto/src/config';
import { InvoicingConfigSchema } from '../services/invoicing/src/load-config';
import { WorkerConfigSchema } from '../services/webhook-worker/src/config';

const SCRIPT = path.join(__dirname, 'validate-compose.mjs');
const COMPOSE = path.join(__dirname, '..', 'docker-compose.yml');
const validate = (file: string) => {
  try {
    return { code: 0, out: execFileSync(process.execPath, [SCRIPT, file], { encoding: 'utf8', stdio: 'pipe' }) };
  } catch (err) {
    const e = err as { status: number; stderr: string };
    return { code: e.status, out: e.stderr };
  }
};

describe('docker-compose.yml', () => {
  it('is valid against the Compose specification’s JSON schema, offline, and its references resolve', () => {
    expect(validate(COMPOSE)).toEqual({ code: 0, out: expect.stringMatching(/^\d+ Compose services valid against the Compose specification/) });
  });

  it('runs the dev mailbox and an S3-compatible server, and invoicing’s API apart from its workers', () => {
    const text = readFileSync(COMPOSE, 'utf8');
    expect(text).toMatch(/^ {2}mailpit:\n {4}image: axllent\/mailpit:/m);
    expect(text).toMatch(/^ {2}s3:\n {4}image: chrislusf\/seaweedfs:/m);
    expect(text).not.toMatch(/image: minio/);
    expect(text).toMatch(/RECEIPTS_STORAGE: s3/);
    expect(text).toMatch(/environment: \{ <<: \*invoicing-env, RUN_WORKERS: "false" \}/);
  });

  it('gives each service only variables its config reads (a misspelled one would be ignored, not refused)', () => {
    const reads: Record<string, string[]> = {
      invoicing: Object.keys(InvoicingConfigSchema.properties),
      crypto: Object.keys(CryptoConfigSchema.properties),
      'webhook-worker': Object.keys(WorkerConfigSchema.properties),
    };
    const compose = parse(readFileSync(COMPOSE, 'utf8'), { merge: true }) as { services: Record<string, { environment?: Record<string, string> }> };
    const ours = Object.entries(compose.services).filter(([, s]) => s.environment?.SERVICE);
    expect(ours.map(([name]) => name).sort()).toEqual(['crypto', 'invoicing', 'invoicing-workers', 'webhook-worker']);
    for (const [name, s] of ours) {
      const unread = Object.keys(s.environment!).filter((k) => k !== 'SERVICE' && !reads[s.environment!.SERVICE!]!.includes(k));
      expect({ service: name, unread }).toEqual({ service: name, unread: [] });
    }
  });

  it('pins every pulled image by tag and digest, builds the app image once, and gives every long-running service a healthcheck', () => {
    const compose = parse(readFileSync(COMPOSE, 'utf8'), { merge: true }) as { services: Record<string, { image?: string; build?: unknown; pull_policy?: string; healthcheck?: { test: string[] } }> };
    const services = Object.entries(compose.services);
    expect(services.filter(([, s]) => s.build).map(([n]) => n)).toEqual(['migrate']);
    const app = compose.services.migrate!.image!;
    for (const [name, s] of services) {
      if (s.build) continue;
      if (s.image === app) expect({ name, pull: s.pull_policy }).toEqual({ name, pull: 'never' });
      else expect({ name, image: s.image }).toEqual({ name, image: expect.stringMatching(/^[\w./-]+:[\w.-]+@sha256:[0-9a-f]{64}$/) });
    }
    const withoutHealthcheck = services.filter(([, s]) => !s.healthcheck).map(([n]) => n).sort();
    // One-shot jobs, which the others wait on to complete.
    expect(withoutHealthcheck).toEqual(['migrate', 's3-bucket']);
    for (const name of ['invoicing', 'invoicing-workers', 'crypto', 'webhook-worker']) expect(compose.services[name]!.healthcheck!.test.join(' ')).toContain('/readyz');
  });

  it('refuses an unpinned image, a second build and a missing healthcheck', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'compose-'));
    try {
      const text = readFileSync(COMPOSE, 'utf8');
      const broken = text
        .replace(/image: redis:7\.4@sha256:[0-9a-f]{64}/, 'image: redis:7')
        .replace('    healthcheck: { test: ["CMD", "/mailpit", "readyz"], interval: 2s, retries: 30 }\n', '')
        .replace('  crypto:\n    <<: *service\n', '  crypto:\n    <<: *service\n    build: { context: ., dockerfile: infra/Dockerfile }\n');
      expect(broken).not.toBe(text);
      const file = path.join(dir, 'docker-compose.yml');
      writeFileSync(file, broken);
      const res = validate(file);
      expect(res.code).toBe(1);
      expect(res.out).toMatch(/services\.redis: image redis:7 is not pinned by tag and digest/);
      expect(res.out).toMatch(/services\.mailpit: has no healthcheck/);
      expect(res.out).toMatch(/the image is built 2 times \(migrate, crypto\)/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a broken copy is refused, naming each problem', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'compose-'));
    try {
      const broken = readFileSync(COMPOSE, 'utf8')
        .replace('  restart: unless-stopped', '  restart: unless-stopped\n  restrat: always')
        .replace('    ports: ["8025:8025"]', '    ports: ["8025:8025"]\n    depends_on: [mailserver]')
        .replace('    healthcheck: { test: ["CMD", "redis-cli", "ping"], interval: 2s, retries: 30 }', '    healthcheck: { test: ["CMD", "redis-cli", "ping"], interval: 2, retries: 30 }');
      const file = path.join(dir, 'docker-compose.yml');
      writeFileSync(file, broken);
      const res = validate(file);
      expect(res.code).toBe(1);
      expect(res.out).toMatch(/compose\.services\.crypto: must NOT have additional properties \(restrat\)/);
      expect(res.out).toMatch(/services\.mailpit: depends on mailserver, which is not a service/);
      expect(res.out).toMatch(/compose\.services\.redis\.healthcheck\.interval: must be string/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
