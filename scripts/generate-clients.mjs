// Generates, from every package's and service's Prisma schema, what its generators ask for:
// the Prisma client, and the table types of its hand-written SQL (prisma-kysely, see
// docs/architecture.md "Queries"). Runs after `pnpm install`. The Prisma CLI insists on downloading a native schema engine
// before any command, even though `generate` never uses it; pointing it at /bin/true keeps
// generation offline. Migrations never go through the CLI: see packages/migrate.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';

const root = join(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..');
const prisma = join(root, 'node_modules', '.bin', 'prisma');
const targets = ['packages', 'services'].flatMap((group) =>
  readdirSync(join(root, group))
    .map((name) => join(root, group, name, 'prisma', 'schema.prisma'))
    .filter((schema) => existsSync(schema))
    // A package that only runs raw SQL over its tables declares no generator: nothing to generate.
    .filter((schema) => /^\s*generator\s+\w+\s*\{/m.test(readFileSync(schema, 'utf8'))),
);
// @pay/db's test table: generated like the others, never migrated (packages/migrate reads prisma/ folders only).
targets.push(join(root, 'packages', 'db', 'test', 'schema.prisma'));
for (const schema of targets) {
  execFileSync(prisma, ['generate', '--schema', schema], {
    stdio: ['ignore', 'ignore', 'inherit'],
    // Generators other than Prisma's own (prisma-kysely) are run as commands found on PATH.
    env: { ...process.env, PATH: `${join(root, 'node_modules', '.bin')}${delimiter}${process.env.PATH ?? ''}`, PRISMA_SCHEMA_ENGINE_BINARY: '/bin/true', PRISMA_HIDE_UPDATE_MESSAGE: '1' },
  });
  console.log(`generated from ${schema.slice(root.length + 1)}`);
}

// The merchant SDK's types and operation table, from the committed OpenAPI documents.
const { generate: generateSdk } = await import('../packages/client/generate.mjs');
console.log(`generated ${(await generateSdk()).slice(root.length + 1)}`);
// The webhook receiver's event types, from the same documents' `webhooks` sections.
const { generate: generateEvents } = await import('../packages/webhook-receiver/generate.mjs');
console.log(`generated ${generateEvents().slice(root.length + 1)}`);
