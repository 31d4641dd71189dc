import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnBuiltService, type RunningService, BUILT_START_MS } from '@pay/testing';

/**
 * The README's shell sessions, run as written (bash, `set -u`: a variable no session defines
 * fails the run) against the stack as scripts/stack.sh starts it: the crypto session, the
 * invoicing v2 and v1 sessions with the batch, and both signing examples, in order, sharing
 * their variables as a reader's terminal does. Only the documented base URLs are pointed at
 * the test's own services.
 */

const README = readFileSync(join(__dirname, '..', 'README.md'), 'utf8');
const SESSIONS = ['A first session with the crypto API', 'A first session with the invoicing v2 API', 'Invoicing v1 and batches', 'Signing requests'];

/** The ```bash blocks under a `## ` heading, in order. */
function bashBlocksUnder(heading: string): string[] {
  const start = README.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`README.md has no "## ${heading}" section`);
  const end = README.indexOf('\n## ', start + 1);
  const section = README.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/```bash\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

let crypto: RunningService;
let invoicing: RunningService;
let worker: RunningService;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'pay-readme-'));
  [crypto, invoicing, worker] = await Promise.all([spawnBuiltService('crypto'), spawnBuiltService('invoicing'), spawnBuiltService('webhook-worker')]);
}, BUILT_START_MS);
afterAll(async () => {
  await Promise.all([crypto?.stop(), invoicing?.stop(), worker?.stop()]);
  rmSync(dir, { recursive: true, force: true });
});

it("runs the README's sessions and signing examples as written, under set -u, without an error answer", async () => {
  const blocks = SESSIONS.flatMap(bashBlocksUnder);
  expect(blocks.length).toBeGreaterThanOrEqual(5);
  const script = ['set -u', ...blocks]
    .join('\n')
    .replaceAll('http://127.0.0.1:3001', invoicing.url)
    .replaceAll('http://127.0.0.1:3002', crypto.url);
  // A reader's terminal: none of the session's variables is set beforehand.
  const env: Record<string, string> = { PATH: process.env.PATH!, HOME: dir };
  const { stdout, stderr, code } = await new Promise<{ stdout: string; stderr: string; code: number | null }>((resolve) => {
    const child = execFile('bash', ['-c', script], { cwd: dir, env, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ stdout, stderr, code: err ? ((err as { code?: number }).code ?? 1) : 0 }),
    );
    child.stdin?.end();
  });
  expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  // Every answer printed is a success: no `"success":false`, no v1 `{"error":…}`.
  expect(stdout).not.toMatch(/"success":false|\{"error":/);
  const answers = stdout.split('\n').filter((l) => l.startsWith('{'));
  // The crypto sandbox transfer, the v2 refund, list, customers and analytics, the v1 settings,
  // pay and analytics, the batch summary, the withdrawal, and the signed v2 GET each answered.
  expect(answers.length).toBeGreaterThanOrEqual(10);
  const lastTwo = answers.slice(-2).map((l) => JSON.parse(l) as { success?: boolean; data?: { status?: string } });
  expect(lastTwo[0]).toMatchObject({ success: true, data: { status: 'Pending' } }); // the signed withdrawal
  expect(lastTwo[1]).toMatchObject({ success: true }); // the signed v2 GET
  // Every answer ends with a newline, so a terminal never runs two of them together.
  expect(stdout).not.toMatch(/\}\{/);
}, 120_000);

it('the OpenAPI documents state their rules, citing no file outside the repository', async () => {
  for (const svc of [crypto, invoicing]) {
    const doc = await (await fetch(`${svc.url}/openapi.json`)).text();
    expect(doc).not.toMatch(/decisions\.md/);
  }
});
