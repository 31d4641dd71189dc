import { ApiError } from '@pay/schemas';
import { generateHmacSecret, type SecretBox } from '@pay/auth';
import { isUniqueViolation, TRANSACTION_OPTIONS, type Queries } from '@pay/db';
import { accountTables, type AccountsDb, type ApiKey, type Merchant } from './db';
import type { AccountKeys } from './key-cache';
import { createApiKey } from './api-keys';

export const DEFAULT_KEY_NAME = 'Default key';

export interface RegisterInput {
  companyName: string;
  email: string;
  address: string;
  city?: string;
  country?: string;
  webhookUrl?: string;
}

export interface Registration {
  merchant: Merchant;
  apiKey: ApiKey;
  /** Plaintext credentials: returned to the caller once, never stored. */
  apiKeyValue: string;
  hmacSecret: string;
}

/** Creates the merchant, its HMAC secret and a first live key in one transaction. */
export async function registerMerchant(db: AccountsDb, box: SecretBox, input: RegisterInput): Promise<Registration> {
  const email = input.email.trim().toLowerCase();
  const hmacSecret = generateHmacSecret();
  try {
    return await db.$transaction(async (tx) => {
      const merchant = await tx.merchant.create({
        data: {
          companyName: input.companyName,
          email,
          address: input.address,
          city: input.city ?? null,
          country: input.country ?? null,
          webhookUrl: input.webhookUrl ?? null,
          hmacSecretEnc: box.seal(hmacSecret),
        },
      });
      const { apiKey, apiKeyValue } = await createApiKey(tx, merchant.id, { name: DEFAULT_KEY_NAME, isTestKey: false });
      return { merchant, apiKey, apiKeyValue, hmacSecret };
    }, TRANSACTION_OPTIONS);
  } catch (err) {
    if (isUniqueViolation(err)) {
      throw new ApiError('EMAIL_ALREADY_REGISTERED', `A merchant with email ${email} is already registered`, [
        { field: 'email', message: 'is already registered' },
      ]);
    }
    throw err;
  }
}

export async function getMerchant(db: AccountsDb, merchantId: string): Promise<Merchant> {
  const merchant = await db.merchant.findUnique({ where: { id: merchantId } });
  if (!merchant) throw new ApiError('NOT_FOUND', 'Merchant not found');
  return merchant;
}

/** Sets the crypto `webhookUrl`; `testWebhookUrl` too when given (null: test events go to `webhookUrl` again). */
export async function setWebhookUrl(db: AccountsDb, merchantId: string, webhookUrl: string, testWebhookUrl?: string | null): Promise<Merchant> {
  return db.merchant.update({ where: { id: merchantId }, data: { webhookUrl, ...(testWebhookUrl !== undefined ? { testWebhookUrl } : {}) } });
}

/**
 * Replaces the merchant's HMAC secret and announces it to every process, so the old secret
 * stops verifying with the next request on every service.
 */
export async function regenerateHmacSecret(db: AccountsDb, box: SecretBox, keys: Pick<AccountKeys, 'changed'>, merchantId: string) {
  const hmacSecret = generateHmacSecret();
  const merchant = await db.merchant.update({
    where: { id: merchantId },
    data: { hmacSecretEnc: box.seal(hmacSecret), hmacSecretRotatedAt: new Date() },
  });
  await keys.changed(merchantId);
  return { hmacSecret, rotatedAt: merchant.hmacSecretRotatedAt };
}

/**
 * Of these merchants, those with somewhere to send crypto events, per mode: live events go to
 * `webhookUrl`, test events to `testWebhookUrl` when set, else to `webhookUrl`.
 */
export async function merchantsWithWebhookUrl(db: Queries, merchantIds: string[]): Promise<{ live: string[]; test: string[] }> {
  if (merchantIds.length === 0) return { live: [], test: [] };
  const rows = await accountTables(db).selectFrom('merchants').select(['id', 'webhook_url', 'test_webhook_url']).where('id', 'in', merchantIds).execute();
  return { live: rows.filter((r) => r.webhook_url !== null).map((r) => r.id), test: rows.filter((r) => (r.test_webhook_url ?? r.webhook_url) !== null).map((r) => r.id) };
}

/** Where a crypto event of this mode goes: test events to `testWebhookUrl` when it is set. */
export const webhookUrlFor = (m: { webhookUrl: string | null; testWebhookUrl: string | null }, isTest: boolean): string | null => (isTest ? (m.testWebhookUrl ?? m.webhookUrl) : m.webhookUrl);

/**
 * Where and how crypto events of these merchants are sent, read at send time: the URL and the
 * sealed HMAC secret. Through the typed builder on the caller's client, so the webhook worker can ask on
 * its own client.
 */
export async function merchantWebhookTargets(
  db: Queries,
  merchantIds: string[],
): Promise<Map<string, { webhookUrl: string | null; testWebhookUrl: string | null; hmacSecretEnc: string }>> {
  if (merchantIds.length === 0) return new Map();
  const rows = await accountTables(db).selectFrom('merchants').select(['id', 'webhook_url', 'test_webhook_url', 'hmac_secret_enc']).where('id', 'in', merchantIds).execute();
  return new Map(rows.map((r) => [r.id, { webhookUrl: r.webhook_url, testWebhookUrl: r.test_webhook_url, hmacSecretEnc: r.hmac_secret_enc }]));
}
