import { randomUUID } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { Queries } from '@pay/db';
import { accountTables } from '../db';
import type { Merchant as MerchantRow } from '../generated/kysely/tables';

export type MerchantStatus = 'Active' | 'Suspended';

/** A merchant as the services see it: the row of `accounts.merchants`, named for code. */
export interface Merchant {
  id: string;
  companyName: string;
  /** Stored lower-cased so uniqueness ignores case. */
  email: string;
  address: string;
  city: string | null;
  country: string | null;
  webhookUrl: string | null;
  /** Where crypto events of test mode go instead of `webhookUrl`, when set. */
  testWebhookUrl: string | null;
  status: MerchantStatus;
  /** numeric(5,2) as text, exact ("1.00"). */
  feePercent: string;
  /** AES-256-GCM envelope of the HMAC secret; the plaintext is never stored. */
  hmacSecretEnc: string;
  hmacSecretRotatedAt: Date;
  createdAt: Date;
  updatedAt: Date;
}

/** The one place a merchants row becomes a `Merchant`: a renamed column fails the type check here. */
function merchantOf(r: Selectable<MerchantRow>): Merchant {
  return {
    id: r.id,
    companyName: r.company_name,
    email: r.email,
    address: r.address,
    city: r.city,
    country: r.country,
    webhookUrl: r.webhook_url,
    testWebhookUrl: r.test_webhook_url,
    status: r.status,
    feePercent: r.fee_percent,
    hmacSecretEnc: r.hmac_secret_enc,
    hmacSecretRotatedAt: r.hmac_secret_rotated_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export interface NewMerchant {
  companyName: string;
  email: string;
  address: string;
  city: string | null;
  country: string | null;
  webhookUrl: string | null;
  hmacSecretEnc: string;
}

/** Fails with a unique violation (`merchants_email_key`) when the email is taken. */
export async function insertMerchant(on: Queries, m: NewMerchant, now: Date): Promise<Merchant> {
  const row = await accountTables(on)
    .insertInto('merchants')
    .values({
      id: randomUUID(),
      company_name: m.companyName,
      email: m.email,
      address: m.address,
      city: m.city,
      country: m.country,
      webhook_url: m.webhookUrl,
      hmac_secret_enc: m.hmacSecretEnc,
      hmac_secret_rotated_at: now,
      created_at: now,
      updated_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return merchantOf(row);
}

export async function merchantById(on: Queries, id: string): Promise<Merchant | undefined> {
  const row = await accountTables(on).selectFrom('merchants').selectAll().where('id', '=', id).executeTakeFirst();
  return row && merchantOf(row);
}

export interface MerchantChanges {
  webhookUrl?: string | null;
  testWebhookUrl?: string | null;
  hmacSecretEnc?: string;
  hmacSecretRotatedAt?: Date;
}

/** The merchant after the change, or undefined when there is no such merchant. */
export async function updateMerchant(on: Queries, id: string, c: MerchantChanges, now: Date): Promise<Merchant | undefined> {
  const row = await accountTables(on)
    .updateTable('merchants')
    .set({
      ...(c.webhookUrl !== undefined ? { webhook_url: c.webhookUrl } : {}),
      ...(c.testWebhookUrl !== undefined ? { test_webhook_url: c.testWebhookUrl } : {}),
      ...(c.hmacSecretEnc !== undefined ? { hmac_secret_enc: c.hmacSecretEnc } : {}),
      ...(c.hmacSecretRotatedAt !== undefined ? { hmac_secret_rotated_at: c.hmacSecretRotatedAt } : {}),
      updated_at: now,
    })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
  return row && merchantOf(row);
}

/** The merchants' webhook URLs (live, test), no secrets. */
export async function webhookUrlsOf(on: Queries, ids: string[]): Promise<{ id: string; webhookUrl: string | null; testWebhookUrl: string | null }[]> {
  const rows = await accountTables(on).selectFrom('merchants').select(['id', 'webhook_url', 'test_webhook_url']).where('id', 'in', ids).execute();
  return rows.map((r) => ({ id: r.id, webhookUrl: r.webhook_url, testWebhookUrl: r.test_webhook_url }));
}

/** Where crypto events of these merchants go, and the sealed HMAC secret they are signed with. */
export async function webhookTargetsOf(on: Queries, ids: string[]): Promise<{ id: string; webhookUrl: string | null; testWebhookUrl: string | null; hmacSecretEnc: string }[]> {
  const rows = await accountTables(on).selectFrom('merchants').select(['id', 'webhook_url', 'test_webhook_url', 'hmac_secret_enc']).where('id', 'in', ids).execute();
  return rows.map((r) => ({ id: r.id, webhookUrl: r.webhook_url, testWebhookUrl: r.test_webhook_url, hmacSecretEnc: r.hmac_secret_enc }));
}
