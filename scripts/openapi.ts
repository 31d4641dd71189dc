/**
 * `pnpm openapi`: writes the OpenAPI documents the two APIs serve at `/openapi.json` into
 * docs/openapi/<service>.json, the files the merchant SDK (packages/client) is generated from.
 * Each service is started as scripts/stack.sh starts it (the built bundle under plain node, on
 * DATABASE_URL and REDIS_URL), with PUBLIC_URL at its documented default, so the document's
 * `servers` is the same on every machine. scripts/openapi.test.ts fails when a committed
 * document differs from what the service serves: run this after changing a route.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '..');

/** The services that publish an API, with the base URL their documents name (README's defaults). */
export const DOCUMENTED_APIS = {
  invoicing: 'http://127.0.0.1:3001',
  crypto: 'http://127.0.0.1:3002',
} as const;
export type DocumentedApi = keyof typeof DOCUMENTED_APIS;

/**
 * What a service is started with to serve its committed document: its documented base URL (so
 * `servers` is the same on every machine), no background work, and the settings the document
 * quotes at their defaults (a receipt's size limit), whatever the caller's environment says.
 */
export function documentEnv(service: DocumentedApi): Record<string, string> {
  return { PUBLIC_URL: DOCUMENTED_APIS[service], RUN_WORKERS: 'false', RECEIPT_MAX_BYTES: '10485760' };
}

export const documentPath = (service: DocumentedApi): string => path.join(ROOT, 'docs', 'openapi', `${service}.json`);

/** A document as committed: two-space JSON and a final newline, so diffs stay readable. */
export const committedText = (document: unknown): string => `${JSON.stringify(document, null, 2)}\n`;

export const readCommitted = (service: DocumentedApi): string => readFileSync(documentPath(service), 'utf8');

/** The document a running service serves. */
export async function servedDocument(url: string): Promise<unknown> {
  const res = await fetch(`${url}/openapi.json`);
  if (!res.ok) throw new Error(`${url}/openapi.json answered ${res.status}`);
  return res.json();
}

async function cli(): Promise<void> {
  const { spawnBuiltService } = await import('@pay/testing');
  // The document does not depend on the key; a service only refuses to start without one.
  const env: Record<string, string> = { ...(process.env.SECRETS_KEY ? {} : { SECRETS_KEY: randomBytes(32).toString('hex') }) };
  for (const service of Object.keys(DOCUMENTED_APIS) as DocumentedApi[]) {
    const svc = await spawnBuiltService(service, { ...env, ...documentEnv(service) });
    try {
      writeFileSync(documentPath(service), committedText(await servedDocument(svc.url)));
      console.log(`wrote ${path.relative(ROOT, documentPath(service))}`);
    } finally {
      await svc.stop();
    }
  }
}

if (require.main === module) {
  cli().catch((err: unknown) => {
    console.error(`openapi failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
}
