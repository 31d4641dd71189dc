import { randomBytes } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { dropDatabase, parseDatabaseUrl, type PgFields } from '../src/connection';
import { functionFiles } from '../src/functions';
import { targetFromDir, type Target } from '../src/targets';

/** The server the tests run against; the database part is replaced by throwaway names. */
const SERVER_URL = process.env.DATABASE_URL ?? 'postgresql://root@127.0.0.1:5432/payments_test';

export interface ThrowawayDatabase {
  name: string;
  url: string;
  fields: PgFields;
  drop(): Promise<void>;
}

/** A name nobody else uses; the database itself is left to whoever creates it (deploy does). */
export function throwawayDatabase(label: string): ThrowawayDatabase {
  const name = `pay_migrate_test_${label}_${process.pid}_${randomBytes(3).toString('hex')}`;
  const u = new URL(SERVER_URL);
  u.pathname = `/${name}`;
  u.search = '';
  const fields = parseDatabaseUrl(u.toString());
  return { name, url: u.toString(), fields, drop: () => dropDatabase(fields, name) };
}

export interface TargetCopy {
  target: Target;
  remove(): void;
}

/**
 * A temp folder with the source target's prisma/ (schema + migrations) and its stored function
 * files (src/**\/*.sql, at the same paths), as target `name`.
 */
export function copyTarget(source: Target, name: string): TargetCopy {
  const parent = mkdtempSync(path.join(tmpdir(), 'pay-migrate-'));
  const dir = path.join(parent, name);
  cpSync(path.dirname(source.schemaFile), path.join(dir, 'prisma'), { recursive: true });
  for (const f of functionFiles(source)) {
    const to = path.join(dir, path.relative(source.dir, f.file));
    mkdirSync(path.dirname(to), { recursive: true });
    cpSync(f.file, to);
  }
  return { target: targetFromDir(dir), remove: () => rmSync(parent, { recursive: true, force: true }) };
}
