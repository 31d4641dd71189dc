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
