/**
 * The signing samples the documents show (/docs), run: each language's `sign` must give the
 * signature of packages/auth's test vectors (themselves computed with openssl), in both styles,
 * and each whole sample (signer and usage) must compile. scripts/bootstrap.sh installs every
 * tool (php-cli and golang-go from Debian), so CI runs them all and fails on a missing one; on a
 * developer's machine without them, that language is skipped, and the test's name says so.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SIGNING_STYLES, signRequest, type SigningStyle } from '@pay/auth';
import { signingGuide, signingRule, signingSamples, type SigningSample } from './signing-guide';

const SECRET = 'hs_test_vector_secret';
// packages/auth/src/signing.test.ts's vector: `1700000000.POST./api/v1/withdrawals{"amount":100}`, Base64 (crypto) and hex (v2).
const VECTOR = { method: 'POST', path: '/api/v1/withdrawals', body: '{"amount":100}' };
const TIMESTAMP: Record<SigningStyle, string> = { crypto: '1700000000', v2: '1700000000000' };
const OPENSSL: Record<SigningStyle, string> = {
  crypto: '3Z6Mo9r+LKPMxs0FnLlH9d9ACE2+jQbZb6PzI4Xtnmk=',
  v2: '93f5b319dcc4243f8dcfb54ca8131a3b0821546676a2d31909f0bf94be39fe8a',
};

const has = (tool: string): boolean => {
  try {
    execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};

const TOOL: Record<SigningSample['language'], string> = { curl: 'openssl', TypeScript: 'node', Python: 'python3', PHP: 'php', Go: 'go' };

/** Runs the sample's signer on the vector in `dir` and returns what it prints: the signature header's value. */
function signWith(sample: SigningSample, style: SigningStyle, dir: string): string {
  const header = SIGNING_STYLES[style].signatureHeader;
  const ts = TIMESTAMP[style];
  const run = (cmd: string, args: string[], env: Record<string, string> = {}) =>
    execFileSync(cmd, args, { cwd: dir, env: { ...process.env, ...env }, encoding: 'utf8', timeout: 120_000 }).trim();
  switch (sample.language) {
    case 'curl':
      return run('bash', ['-c', `set -euo pipefail\n${sample.signer}\nprintf '%s' "$SIG"`], { TS: ts, HMAC_SECRET: SECRET });
    case 'TypeScript':
      writeFileSync(path.join(dir, 'sign.mts'), `${sample.signer}\nconsole.log(sign(${JSON.stringify(SECRET)}, 'POST', '${VECTOR.path}', ${JSON.stringify(VECTOR.body)}, '${ts}')['${header}']);\n`);
      return run(process.execPath, ['--experimental-strip-types', '--no-warnings', 'sign.mts']);
    case 'Python':
      writeFileSync(path.join(dir, 'sign.py'), `${sample.signer}\nprint(sign(${JSON.stringify(SECRET)}, "POST", "${VECTOR.path}", ${JSON.stringify(VECTOR.body)}.encode(), "${ts}")["${header}"])\n`);
      return run('python3', ['sign.py']);
    case 'PHP':
      writeFileSync(path.join(dir, 'sign.php'), `${sample.signer}\necho sign('${SECRET}', 'POST', '${VECTOR.path}', '${VECTOR.body}', '${ts}')['${header}'];\n`);
      return run('php', ['sign.php']);
    case 'Go':
      writeFileSync(path.join(dir, 'sign.go'), `${sample.signer}\n`);
      writeFileSync(path.join(dir, 'main.go'), `package main\n\nimport "fmt"\n\nfunc main() {\n\tfmt.Print(sign("${SECRET}", "POST", "${VECTOR.path}", []byte(\`${VECTOR.body}\`), "${ts}")["${header}"])\n}\n`);
      return run('go', ['run', 'sign.go', 'main.go'], { GOCACHE: path.join(dir, '.gocache'), GO111MODULE: 'off' });
  }
}

/** Compiles (never runs: it would send a request) the sample as the document shows it. */
function compileWhole(sample: SigningSample, dir: string): void {
  const run = (cmd: string, args: string[], env: Record<string, string> = {}) =>
    execFileSync(cmd, args, { cwd: dir, env: { ...process.env, ...env }, encoding: 'utf8', timeout: 120_000 });
  switch (sample.language) {
    case 'curl':
      run('bash', ['-n', '-c', `${sample.signer}\n${sample.usage}`]);
      return;
    case 'TypeScript':
      // Type stripping parses the module; a syntax error fails here.
      writeFileSync(path.join(dir, 'whole.mts'), `${sample.signer}\n${sample.usage.replace(/^const res = await fetch/m, 'const res = await (async (..._: unknown[]) => ({ status: 0, json: async () => null }))')}\n`);
      run(process.execPath, ['--experimental-strip-types', '--no-warnings', '--check', 'whole.mts']);
      return;
    case 'Python':
      writeFileSync(path.join(dir, 'whole.py'), `${sample.signer}\n\n${sample.usage}\n`);
      run('python3', ['-m', 'py_compile', 'whole.py']);
      return;
    case 'PHP':
      writeFileSync(path.join(dir, 'whole.php'), `${sample.signer}\n${sample.usage}\n`);
      run('php', ['-l', 'whole.php']);
      return;
    case 'Go':
      writeFileSync(path.join(dir, 'sign.go'), `${sample.signer}\n`);
      writeFileSync(path.join(dir, 'main.go'), `${sample.usage}\n`);
      run('go', ['build', '-o', path.join(dir, 'sample'), 'sign.go', 'main.go'], { GOCACHE: path.join(dir, '.gocache'), GO111MODULE: 'off' });
  }
}

const STYLES: SigningStyle[] = ['crypto', 'v2'];
const cases = STYLES.flatMap((style) =>
  signingSamples(style, VECTOR).map((sample) => ({ style, sample, label: `${style} ${sample.language}${has(TOOL[sample.language]) ? '' : ` (${TOOL[sample.language]} not installed: skipped)`}` })),
);

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'pay-signing-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it('the vectors are those of the platform’s own signer', () => {
  for (const style of STYLES) expect(signRequest(style, SECRET, { timestamp: TIMESTAMP[style], ...VECTOR })).toBe(OPENSSL[style]);
});

it.each(cases)('$label: signs the vector as the server verifies it, and the whole sample compiles', ({ style, sample }) => {
  if (!has(TOOL[sample.language])) {
    if (process.env.CI) throw new Error(`${TOOL[sample.language]} is not installed: scripts/bootstrap.sh installs it`);
    return;
  }
  expect(signWith(sample, style, dir)).toBe(OPENSSL[style]);
  compileWhole(sample, dir);
}, 180_000);

it('the rule names the style’s own headers, unit and encoding, and the guide shows every language', () => {
  expect(signingRule('crypto')).toMatch(/`X-Timestamp` = Unix time in \*\*seconds\*\*.*`X-Signature` = standard padded \*\*Base64\*\*/);
  expect(signingRule('v2')).toMatch(/`x-timestamp` = Unix time in \*\*milliseconds\*\*.*`x-signature` = lower-case \*\*hex\*\*/);
  const guide = signingGuide('v2', VECTOR);
  for (const language of ['curl', 'TypeScript', 'Python', 'PHP', 'Go']) expect(guide).toContain(`### ${language}\n`);
});
