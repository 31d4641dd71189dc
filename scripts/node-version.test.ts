import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Node 24 everywhere (issue 29): Node 20 reached its end of life on 2026-04-30. The image, the
 * engines field, CI, the tests, the stack and the bench all run on 24; where the machine's node
 * is older, bootstrap.sh installs Node 24 into .tools/node and scripts/node-path.sh puts it first.
 */
const ROOT = path.join(__dirname, '..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
const major = (version: string) => Number(version.replace(/^v/, '').split('.')[0]);

it('this test run is on Node 24 or later (run it with `bash scripts/test.sh`, `pnpm test`, or after `. scripts/node-path.sh`)', () => {
  expect(major(process.versions.node)).toBeGreaterThanOrEqual(24);
});

it('scripts/node-path.sh puts a Node 24 first on PATH, the version bootstrap.sh installs where the machine has an older one', () => {
  const pinned = /^PAY_NODE_VERSION=(\d+\.\d+\.\d+)$/m.exec(read('scripts/node-path.sh'))![1]!;
  expect(major(pinned)).toBe(24);
  const chosen = execFileSync('bash', ['-c', '. scripts/node-path.sh && node -p process.versions.node'], { cwd: ROOT, encoding: 'utf8' }).trim();
  expect(major(chosen)).toBeGreaterThanOrEqual(24);
  // The wrapper form, as package.json's scripts use it.
  expect(execFileSync('bash', ['scripts/node-path.sh', 'node', '-p', 'process.versions.node'], { cwd: ROOT, encoding: 'utf8' }).trim()).toBe(chosen);
  expect(read('scripts/bootstrap.sh')).toMatch(/npm pack --silent "node-linux-\$arch@\$PAY_NODE_VERSION"/);
});

it('the image, engines, CI, the test command, the stack and the bench are on Node 24', () => {
  const froms = [...read('infra/Dockerfile').matchAll(/^FROM (\S+)/gm)].map((m) => m[1]!);
  expect(froms.length).toBeGreaterThan(0);
  for (const from of froms) expect(from).toMatch(/^node:24[.-]/);
  const manifest = JSON.parse(read('package.json')) as { engines: { node: string }; scripts: Record<string, string> };
  expect(manifest.engines.node).toBe('>=24');
  expect(manifest.scripts.test).toMatch(/^bash scripts\/node-path\.sh /);
  expect(manifest.scripts.bench).toMatch(/^bash scripts\/node-path\.sh /);
  for (const script of ['.ci/run', 'scripts/test.sh', 'scripts/stack.sh']) expect(`${script}: ${read(script)}`).toMatch(/\n\. scripts\/node-path\.sh\n/);
  expect(read('packages/build/src/index.ts')).toContain("target: 'node24'");
});
