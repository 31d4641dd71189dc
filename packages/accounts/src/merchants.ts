import { ApiError } from '@pay/schemas';
import { generateHmacSecret, type SecretBox } from '@pay/auth';
import { isUniqueViolation, type Queries, type Transactions } from '@pay/db';
import type { AccountKeys } from './key-cache';
import { createApiKey } from './api-keys';
import type { ApiKey } from './store/api-keys';
import { insertMerchant, merchantById, updateMerchant, webhookTargetsOf, webhookUrlsOf, type Merchant } from './store/merchants';

export type { Merchant, MerchantStatus } from './store/merchants';

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

/** Creates the merchant, its HMAC secret and a first live key in one transaction, on the caller's client. */
export async function registerMerchant(on: Transactions, box: SecretBox, input: RegisterInput): Promise<Registration> {
  const email = input.email.trim().toLowerCase();
  const hmacSecret = generateHmacSecret();
  const now = new Date();
  try {
    return await on.$transaction(async (tx) => {
      const merchant = await insertMerchant(
        tx,
        {
          companyName: input.companyName,
          email,
          address: input.address,
          city: input.city ?? null,
          country: input.country ?? null,
          webhookUrl: input.webhookUrl ?? null,
          hmacSecretEnc: box.seal(hmacSecret),
        },
        now,
      );
      const { apiKey, apiKeyValue } = await createApiKey(tx, merchant.id, { name: DEFAULT_KEY_NAME, isTestKey: false });
      return { merchant, apiKey, apiKeyValue, hmacSecret };
    });
  } catch (err) {
    if (isUniqueViolation(err)) {
      throw new ApiError('EMAIL_ALREADY_REGISTERED', `A merchant with email ${email} is already registered`, [
        { field: 'email', message: 'is already registered' },
      ]);
    }
    throw err;
  }
}

export async function getMerchant(on: Queries, merchantId: string): Promise<Merchant> {
  const merchant = await merchantById(on, merchantId);
  if (!merchant) throw new ApiError('NOT_FOUND', 'Merchant not found');
  return merchant;
}

/** Sets the crypto `webhookUrl` (null: none); `testWebhookUrl` too when given (null: test events go to `webhookUrl` again). */
export async function setWebhookUrl(on: Queries, merchantId: string, webhookUrl: string | null, testWebhookUrl?: string | null): Promise<Merchant> {
  const merchant = await updateMerchant(on, merchantId, { webhookUrl, testWebhookUrl }, new Date());
  if (!merchant) throw new ApiError('NOT_FOUND', 'Merchant not found');
  return merchant;
}

/**
 * Replaces the merchant's HMAC secret and announces it to every process, so the old secret
 * stops verifying with the next request on every service.
 */
export async function regenerateHmacSecret(on: Queries, box: SecretBox, keys: Pick<AccountKeys, 'changed'>, merchantId: string) {
  const hmacSecret = generateHmacSecret();
  const now = new Date();
  const merchant = await updateMerchant(on, merchantId, { hmacSecretEnc: box.seal(hmacSecret), hmacSecretRotatedAt: now }, now);
  if (!merchant) throw new ApiError('NOT_FOUND', 'Merchant not found');
  await keys.changed(merchantId);
  return { hmacSecret, rotatedAt: merchant.hmacSecretRotatedAt };
}

/**
 * Of these merchants, those with somewhere to send crypto events, per mode: live events go to
 * `webhookUrl`, test events to `testWebhookUrl` when set, else to `webhookUrl`.
 */
export async function merchantsWithWebhookUrl(db: Queries, merchantIds: string[]): Promise<{ live: string[]; test: string[] }> {
  if (merchantIds.length === 0) return { live: [], test: [] };
  const rows = await webhookUrlsOf(db, merchantIds);
  return { live: rows.filter((r) => r.webhookUrl !== null).map((r) => r.id), test: rows.filter((r) => (r.testWebhookUrl ?? r.webhookUrl) !== null).map((r) => r.id) };
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
  const rows = await webhookTargetsOf(db, merchantIds);
  return new Map(rows.map(({ id, ...target }) => [id, target]));
}
