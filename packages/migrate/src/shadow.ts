import { randomBytes } from 'node:crypto';
import { maintenanceFields, quoteIdent, withClient, type PgFields } from './connection';

const PREFIX = 'pay_migrate_shadow_';

/** A fresh, empty database with a name nobody else will pick (Postgres caps names at 63 bytes). */
export async function createShadowDatabase(fields: PgFields, label: string): Promise<string> {
  const name = `${PREFIX}${label.slice(0, 24)}_${process.pid}_${randomBytes(4).toString('hex')}`;
  await withClient(maintenanceFields(fields), async (client) => {
    await client.query(`CREATE DATABASE ${quoteIdent(name)}`);
  });
  return name;
}

export function isShadowDatabaseName(name: string): boolean {
  return name.startsWith(PREFIX);
}
