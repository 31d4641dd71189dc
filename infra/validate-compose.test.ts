import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { CryptoConfigSchema } from '../services/crypto/src/config';
import { InvoicingConfigSchema } from '../services/invoicing/src/config';
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
    expect(text).toMatch(/^ {2}maildev:\n {4}image: maildev\/maildev/m);
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

  it('a broken copy is refused, naming each problem', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'compose-'));
    try {
      const broken = readFileSync(COMPOSE, 'utf8')
        .replace('  restart: unless-stopped', '  restart: unless-stopped\n  restrat: always')
        .replace('    ports: ["1080:1080"]', '    ports: ["1080:1080"]\n    depends_on: [mailserver]')
        .replace('    healthcheck: { test: ["CMD", "redis-cli", "ping"], interval: 2s, retries: 30 }', '    healthcheck: { test: ["CMD", "redis-cli", "ping"], interval: 2, retries: 30 }');
      const file = path.join(dir, 'docker-compose.yml');
      writeFileSync(file, broken);
      const res = validate(file);
      expect(res.code).toBe(1);
      expect(res.out).toMatch(/compose\.services\.crypto: must NOT have additional properties \(restrat\)/);
      expect(res.out).toMatch(/services\.maildev: depends on mailserver, which is not a service/);
      expect(res.out).toMatch(/compose\.services\.redis\.healthcheck\.interval: must be string/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
