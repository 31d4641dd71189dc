// Generates the Prisma client of every package and service that owns a Prisma schema.
// Runs after `pnpm install`. The Prisma CLI insists on downloading a native schema engine
// before any command, even though `generate` never uses it; pointing it at /bin/true keeps
// generation offline. Migrations never go through the CLI: see packages/migrate.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..');
const prisma = join(root, 'node_modules', '.bin', 'prisma');
const targets = ['packages', 'services'].flatMap((group) =>
  readdirSync(join(root, group))
    .map((name) => join(root, group, name, 'prisma', 'schema.prisma'))
    .filter((schema) => existsSync(schema))
    // A package that only runs raw SQL over its tables declares no generator: nothing to generate.
    .filter((schema) => /^\s*generator\s+\w+\s*\{/m.test(readFileSync(schema, 'utf8'))),
);
for (const schema of targets) {
  execFileSync(prisma, ['generate', '--schema', schema], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: '/bin/true', PRISMA_HIDE_UPDATE_MESSAGE: '1' },
  });
  console.log(`prisma client generated for ${schema.slice(root.length + 1)}`);
}
