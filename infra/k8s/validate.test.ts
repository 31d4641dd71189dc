import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const DIR = __dirname;
const validate = (dir: string) => {
  try {
    return { code: 0, out: execFileSync(process.execPath, [path.join(DIR, 'validate.mjs'), dir], { encoding: 'utf8', stdio: 'pipe' }) };
  } catch (err) {
    const e = err as { status: number; stderr: string };
    return { code: e.status, out: e.stderr };
  }
};

describe('Kubernetes manifests', () => {
  it('are valid against the Kubernetes schemas, offline, and cross-reference correctly', () => {
    const res = validate(DIR);
    expect(res).toEqual({ code: 0, out: expect.stringMatching(/^\d+ Kubernetes objects valid/) });
  });

  it('a broken copy is refused, naming each problem', () => {
    const copy = mkdtempSync(path.join(tmpdir(), 'k8s-'));
    try {
      cpSync(DIR, copy, { recursive: true });
      const file = path.join(copy, 'invoicing.yaml');
      const text = readFileSync(file, 'utf8')
        .replace('containerPort: 3001', 'containerPort: "x"')
        .replace(/readinessProbe:\n\s+httpGet: \{ path: \/readyz, port: http \}\n\s+periodSeconds: 5\n\s+failureThreshold: 2\n/, '')
        .replace('name: invoicing }\n  minReplicas', 'name: invoicing-typo }\n  minReplicas');
      writeFileSync(file, text);
      const res = validate(copy);
      expect(res.code).toBe(1);
      expect(res.out).toMatch(/containerPort must be integer/);
      expect(res.out).toMatch(/container invoicing has no readinessProbe/);
      expect(res.out).toMatch(/targets Deployment\/invoicing-typo, which does not exist/);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});
