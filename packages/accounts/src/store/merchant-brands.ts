import type { Queries } from '@pay/db';
import { accountTables } from '../db';

/** A merchant's identity as stored: the merchant's own columns with its brand row (none: all null). */
export interface BrandRow {
  companyName: string;
  email: string;
  displayName: string | null;
  brandColor: string | null;
  logo: Buffer | null;
  logoType: string | null;
  defaultLanguage: string | null;
}

/** One statement: the merchant left-joined with its brand row; undefined when there is no such merchant. */
export async function brandRowOf(on: Queries, merchantId: string): Promise<BrandRow | undefined> {
  const r = await accountTables(on)
    .selectFrom('merchants as m')
    .leftJoin('merchant_brands as b', 'b.merchant_id', 'm.id')
    .select(['m.company_name', 'm.email', 'b.display_name', 'b.brand_color', 'b.logo', 'b.logo_type', 'b.default_language'])
    .where('m.id', '=', merchantId)
    .executeTakeFirst();
  return (
    r && {
      companyName: r.company_name,
      email: r.email,
      displayName: r.display_name,
      brandColor: r.brand_color,
      logo: r.logo,
      logoType: r.logo_type,
      defaultLanguage: r.default_language,
    }
  );
}

export interface BrandChanges {
  displayName?: string | null;
  brandColor?: string | null;
  logo?: { bytes: Buffer; type: string } | null;
  defaultLanguage?: string;
}

/** Creates the brand row or changes the given fields of it; fields not given keep their value. */
export async function upsertBrand(on: Queries, merchantId: string, c: BrandChanges, now: Date): Promise<void> {
  const set = {
    ...(c.displayName !== undefined ? { display_name: c.displayName } : {}),
    ...(c.brandColor !== undefined ? { brand_color: c.brandColor } : {}),
    ...(c.logo !== undefined ? { logo: c.logo?.bytes ?? null, logo_type: c.logo?.type ?? null } : {}),
    ...(c.defaultLanguage !== undefined ? { default_language: c.defaultLanguage } : {}),
    updated_at: now,
  };
  await accountTables(on)
    .insertInto('merchant_brands')
    .values({ merchant_id: merchantId, ...set })
    .onConflict((oc) => oc.column('merchant_id').doUpdateSet(set))
    .execute();
}
