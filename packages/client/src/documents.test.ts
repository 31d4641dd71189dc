/**
 * The OpenAPI documents the SDK is generated from (docs/openapi/*.json): what the services
 * serve, fit for generation, and passing Redocly's recommended rules (the engine of
 * `redocly lint`, run here so CI fails on it; it reads the files and fetches nothing).
 */
import { createConfig, lint } from '@redocly/openapi-core';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawnBuiltService, BUILT_START_MS } from '@pay/testing';
import { committedText, documentEnv, documentPath, DOCUMENTED_APIS, readCommitted, servedDocument, type DocumentedApi } from '../../../scripts/openapi';

const SERVICES = Object.keys(DOCUMENTED_APIS) as DocumentedApi[];
type Doc = { paths: Record<string, Record<string, { operationId?: string; security?: unknown[] }>>; webhooks?: Record<string, Record<string, { operationId?: string; security?: unknown[] }>> };
const operationsOf = (doc: Doc) => [...Object.values(doc.paths), ...Object.values(doc.webhooks ?? {})].flatMap((item) => Object.entries(item).map(([method, op]) => ({ method, ...op })));

async function lintProblems(file: string) {
  const problems = await lint({ ref: file, config: await createConfig({ extends: ['recommended'] }) });
  return problems.map((p) => ({ severity: p.severity, rule: p.ruleId, where: p.location[0]?.pointer, message: p.message }));
}

it.each(SERVICES)('docs/openapi/%s.json is what the service serves (run `pnpm openapi` after changing a route)', async (service) => {
  // As `pnpm openapi` makes it: the built service, with the settings the document shows at their defaults.
  const svc = await spawnBuiltService(service, documentEnv(service));
  try {
    const served = committedText(await servedDocument(svc.url));
    if (served !== readCommitted(service)) {
      throw new Error(`${path.relative(process.cwd(), documentPath(service))} is stale: it differs from what ${service} serves at /openapi.json. Run \`pnpm openapi\` and commit the result.`);
    }
  } finally {
    await svc.stop();
  }
}, BUILT_START_MS);

it.each(SERVICES)('docs/openapi/%s.json names every operation uniquely and says who may call it', (service) => {
  const ops = operationsOf(JSON.parse(readCommitted(service)) as Doc);
  const ids = ops.map((op) => op.operationId);
  expect(ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z0-9]*$/.test(id))).toBe(true);
  expect(new Set(ids).size).toBe(ids.length);
  expect(ops.filter((op) => !Array.isArray(op.security))).toEqual([]);
});

it.each(SERVICES)("docs/openapi/%s.json passes Redocly's recommended rules with no error and no warning", async (service) => {
  expect(await lintProblems(documentPath(service))).toEqual([]);
});

it("`redocly lint --extends recommended` (the pinned @redocly/cli, its own newer rules) finds no error and no warning in either document, offline", () => {
  const cli = path.join(__dirname, '..', 'node_modules', '.bin', 'redocly');
  // Telemetry and the update check off: the linter reads the files and sends nothing anywhere.
  for (const service of SERVICES) {
    const out = execFileSync(cli, ['lint', '--extends', 'recommended', '--format', 'json', documentPath(service)], {
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const report = JSON.parse(out) as { totals: { errors: number; warnings: number }; problems: { ruleId: string; message: string }[] };
    expect([service, report.problems.map((p) => `${p.ruleId}: ${p.message}`)]).toEqual([service, []]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  }
}, 120_000);

it('the linter does see what a document without operationIds and security would lack', async () => {
  const doc = JSON.parse(readCommitted('crypto')) as Doc;
  for (const item of [...Object.values(doc.paths), ...Object.values(doc.webhooks ?? {})]) {
    for (const op of Object.values(item)) {
      delete op.operationId;
      delete op.security;
    }
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'pay-openapi-'));
  try {
    writeFileSync(path.join(dir, 'crypto.json'), JSON.stringify(doc));
    const rules = (await lintProblems(path.join(dir, 'crypto.json'))).map((p) => `${p.severity} ${p.rule}`);
    expect(rules.filter((r) => r === 'warn operation-operationId')).toHaveLength(22);
    expect(rules).toContain('error security-defined');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
