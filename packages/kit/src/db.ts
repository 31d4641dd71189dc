import { PrismaPg } from '@prisma/adapter-pg';

/**
 * Driver adapter for a Prisma client confined to one Postgres schema. The `schema` option
 * qualifies Prisma's own queries; the search_path makes raw SQL land in the same schema.
 */
export function pgAdapter(databaseUrl: string, schema: string, max = 10): PrismaPg {
  return new PrismaPg(
    { connectionString: databaseUrl, options: `-c search_path=${schema}`, max },
    { schema },
  );
}

interface DriverCause {
  originalCode?: string;
  constraint?: { index?: string };
}

/**
 * Whether a Prisma call failed on a unique index: P2002 from typed writes, or Postgres's 23505
 * surfacing as P2010 from raw queries. `index` narrows it to one index, so a retry meant for
 * one collision never swallows another.
 */
export function isUniqueViolation(err: unknown, index?: string): boolean {
  const e = err as { code?: string; meta?: { driverAdapterError?: { cause?: DriverCause } } } | null;
  const cause = e?.meta?.driverAdapterError?.cause;
  const unique = e?.code === 'P2002' || (e?.code === 'P2010' && cause?.originalCode === '23505');
  return unique && (index === undefined || cause?.constraint?.index === index);
}
