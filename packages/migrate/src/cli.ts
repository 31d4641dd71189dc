import path from 'node:path';
import { checkMigrations, checkReport } from './check';
import { DEFAULT_DATABASE_URL, redact } from './connection';
import { createMigration } from './create';
import { deploy } from './deploy';
import { EngineError, lastEnginePanic } from './engine';
import { describeDrift } from './functions';
import { findRepoRoot } from './targets';

const USAGE = `usage: tsx packages/migrate/src/cli.ts <verb>

  create <target> <migration_name>  write prisma/migrations/<stamp>_<name>/ from schema.prisma changes
                                    and from changed stored function files (src/**/<function>.sql)
  deploy [target...]                apply pending migrations (creates the database if missing)
  check [target...]                 fail if any schema.prisma or stored function file differs
                                    from what its migrations make

<target> is the folder name under packages/ or services/ (e.g. accounts, crypto).
It connects to DATABASE_DIRECT_URL when set (Postgres itself, past PgBouncer: deploy holds an
advisory lock for its whole session), else DATABASE_URL, which defaults to ${DEFAULT_DATABASE_URL}.`;

class UsageError extends Error {}

async function main(argv: string[]): Promise<number> {
  const [verb, ...args] = argv;
  // Deploy's advisory lock and search_path live in a session, which PgBouncer in transaction
  // pooling does not keep: the direct connection when the services' goes through one.
  const databaseUrl = process.env.DATABASE_DIRECT_URL || process.env.DATABASE_URL || DEFAULT_DATABASE_URL;
  // The checkout this file lives in, whatever the caller's cwd.
  const root = findRepoRoot(__dirname);
  const started = Date.now();
  const took = () => `${Date.now() - started} ms`;

  switch (verb) {
    case 'create': {
      const [target, ...nameParts] = args;
      if (!target || nameParts.length === 0) throw new UsageError('create needs <target> <migration_name>');
      const res = await createMigration({ databaseUrl, root, target, name: nameParts.join('_') });
      if (!res.created) {
        console.error(`${res.target.name}: no changes: schema.prisma and the stored function files already match its migrations; nothing written`);
        return 1;
      }
      console.log(`${res.target.name}: wrote ${path.relative(root, res.folder)}/migration.sql (${took()})`);
      for (const d of res.functions) console.log(`  stored function: ${describeDrift(d, root)}`);
      return 0;
    }
    case 'deploy': {
      console.log(`deploying to ${redact(databaseUrl)}`);
      await deploy({ databaseUrl, root, targets: args });
      console.log(`done in ${took()}`);
      return 0;
    }
    case 'check': {
      const results = await checkMigrations({ databaseUrl, root, targets: args });
      for (const line of checkReport(results, root)) console.log(line);
      const stale = results.filter((r) => !r.ok);
      console.log(`\n${stale.length === 0 ? 'all migrations match' : `${stale.length} target(s) out of date`} (${took()})`);
      return stale.length === 0 ? 0 : 1;
    }
    case undefined:
    case '-h':
    case '--help':
    case 'help':
      console.log(USAGE);
      return verb === undefined ? 2 : 0;
    default:
      throw new UsageError(`unknown verb "${verb}"`);
  }
}

// A panic inside an engine future aborts outside any promise we hold: say why before dying.
process.on('uncaughtException', (err) => {
  const panic = lastEnginePanic();
  console.error(panic ? `error: the schema engine panicked: ${panic}` : err);
  process.exit(1);
});

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    if (err instanceof UsageError) {
      console.error(`${err.message}\n\n${USAGE}`);
      process.exitCode = 2;
      return;
    }
    console.error(`error: ${err instanceof Error ? err.message : String(err)}`);
    if (err instanceof EngineError && err.engineLog.length > 0) {
      console.error('\nschema engine log:');
      for (const line of err.engineLog) console.error(`  ${line}`);
    }
    process.exitCode = 1;
  },
);
