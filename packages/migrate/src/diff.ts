import { readFileSync } from 'node:fs';
import { EngineAdapters } from './adapters';
import { maintenanceFields, type PgFields } from './connection';
import { NO_FILTERS, withEngine } from './engine';
import { readMigrationList } from './migrations';
import type { Target } from './targets';

export interface SchemaDiff {
  /** True when the committed migrations do not produce schema.prisma. */
  changed: boolean;
  /** The SQL that would bring the migrations up to schema.prisma ('' when unchanged). */
  sql: string;
}

/**
 * Replays the target's migrations into a throwaway shadow database and diffs that against
 * schema.prisma. Everything runs in the shadow's `public` schema, which is fine: the
 * migrations are unqualified SQL, so the result is the same whatever schema they run in.
 */
export async function diffMigrationsToSchema(fields: PgFields, target: Target): Promise<SchemaDiff> {
  const schemaFile = { path: target.schemaFile, content: readFileSync(target.schemaFile, 'utf8') };
  const migrationsList = readMigrationList(target.migrationsDir);
  // The engine connects its main adapter on start even for a pure diff; point it at the
  // maintenance database so the target database need not exist yet.
  const adapters = new EngineAdapters(maintenanceFields(fields), { label: target.schema });
  const out = await withEngine(`diff ${target.name}`, [schemaFile], adapters, (engine) =>
    engine.diff({
      from: { tag: 'migrations', ...migrationsList },
      to: { tag: 'schemaDatamodel', files: [schemaFile] },
      script: true,
      exitCode: true,
      filters: NO_FILTERS,
    }),
  );
  // exitCode semantics of `prisma migrate diff --exit-code`: 0 empty, 2 non-empty.
  if (out.exitCode === 0) return { changed: false, sql: '' };
  if (out.exitCode === 2) return { changed: true, sql: out.stdout ?? '' };
  throw new Error(`diff ${target.name}: engine returned exit code ${out.exitCode}`);
}
