import { randomUUID } from 'node:crypto';
import { SecretBox, hashApiKey } from '@pay/auth';
import { isUniqueViolation } from '@pay/db';
import { testDb } from '@pay/db/src/testing';
import { ApiError } from '@pay/schemas';
import {
  accountsKeyResolver,
  consoleSessionOf,
  createApiKey,
  getMerchant,
  listApiKeys,
  merchantWebhookTargets,
  merchantsWithWebhookUrl,
  pruneConsoleSessions,
  regenerateHmacSecret,
  registerMerchant,
  revokeApiKey,
  setWebhookUrl,
  signInToConsole,
  signOutOfConsole,
  touchApiKey,
  DEFAULT_CONSOLE_SESSION_POLICY,
} from './index';
import { insertMerchant } from './store/merchants';

// A caller's client as a service passes it: its search_path is not `accounts`, so every
// statement here must name the package's schema itself.
const db = testDb('public', 4);
const box = SecretBox.fromEnv(process.env.SECRETS_KEY);
const announced: string[] = [];
const keys = { changed: async (merchantId: string) => void announced.push(merchantId) };

afterAll(() => db.$close());

const email = () => `m-${randomUUID()}@example.test`;
const register = (input: Partial<{ email: string; webhookUrl: string }> = {}) =>
  registerMerchant(db, box, { companyName: 'Acme Ltd', email: input.email ?? email(), address: '1 Main St', webhookUrl: input.webhookUrl });

async function codeOf(p: Promise<unknown>): Promise<string> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(err)}`);
  return err.code;
}

describe('merchants', () => {
  it('registers a merchant with a first live key, read back in the shapes callers use', async () => {
    const address = email().toUpperCase();
    const r = await register({ email: address });
    expect(r.merchant).toEqual({
      id: expect.any(String),
      companyName: 'Acme Ltd',
      email: address.toLowerCase(),
      address: '1 Main St',
      city: null,
      country: null,
      webhookUrl: null,
      testWebhookUrl: null,
      status: 'Active',
      feePercent: '1.00',
      hmacSecretEnc: expect.any(String),
      hmacSecretRotatedAt: expect.any(Date),
      createdAt: expect.any(Date),
      updatedAt: expect.any(Date),
    });
    expect(box.open(r.merchant.hmacSecretEnc)).toBe(r.hmacSecret);
    expect(r.apiKey).toEqual({
      id: expect.any(String),
      merchantId: r.merchant.id,
      name: 'Default key',
      keyHash: hashApiKey(r.apiKeyValue),
      keyPrefix: expect.any(String),
      isTestKey: false,
      createdAt: expect.any(Date),
      lastUsedAt: null,
      revokedAt: null,
    });
    expect(r.apiKeyValue.startsWith(r.apiKey.keyPrefix)).toBe(true);
    expect(await getMerchant(db, r.merchant.id)).toEqual(r.merchant);
  });

  it('refuses a taken email, whatever its case, and leaves nothing of the second attempt', async () => {
    const address = email();
    const first = await register({ email: address });
    expect(await codeOf(register({ email: address.toUpperCase() }))).toBe('EMAIL_ALREADY_REGISTERED');
    expect((await listApiKeys(db, first.merchant.id, 1, 10)).totalCount).toBe(1);
  });

  it('recognises the unique violation raised through $kysely, in and outside a transaction', async () => {
    const taken = (await register()).merchant.email;
    const row = { companyName: 'B', email: taken, address: 'x', city: null, country: null, webhookUrl: null, hmacSecretEnc: 'e' };
    const outside = await insertMerchant(db, row, new Date()).catch((e: unknown) => e);
    const inside = await db.$transaction((tx) => insertMerchant(tx, row, new Date())).catch((e: unknown) => e);
    for (const err of [outside, inside]) {
      expect(isUniqueViolation(err)).toBe(true);
      expect(isUniqueViolation(err, 'merchants_email_key')).toBe(true);
      expect(isUniqueViolation(err, 'api_keys_key_hash_key')).toBe(false);
    }
  });

  it('getMerchant: NOT_FOUND for an unknown id', async () => {
    expect(await codeOf(getMerchant(db, randomUUID()))).toBe('NOT_FOUND');
  });

  it('sets the webhook URLs: the test one only when given, null clears it', async () => {
    const { merchant } = await register();
    const a = await setWebhookUrl(db, merchant.id, 'https://a.example/live', 'https://a.example/test');
    expect(a).toMatchObject({ webhookUrl: 'https://a.example/live', testWebhookUrl: 'https://a.example/test' });
    expect(a.updatedAt.getTime()).toBeGreaterThanOrEqual(merchant.updatedAt.getTime());
    expect(await setWebhookUrl(db, merchant.id, 'https://b.example/live')).toMatchObject({ webhookUrl: 'https://b.example/live', testWebhookUrl: 'https://a.example/test' });
    expect(await setWebhookUrl(db, merchant.id, 'https://b.example/live', null)).toMatchObject({ testWebhookUrl: null });
    const other = (await register()).merchant;
    expect(await merchantsWithWebhookUrl(db, [merchant.id, other.id])).toEqual({ live: [merchant.id], test: [merchant.id] });
    const targets = await merchantWebhookTargets(db, [merchant.id]);
    expect(targets.get(merchant.id)).toEqual({ webhookUrl: 'https://b.example/live', testWebhookUrl: null, hmacSecretEnc: merchant.hmacSecretEnc });
    expect(await codeOf(setWebhookUrl(db, randomUUID(), 'https://c.example'))).toBe('NOT_FOUND');
  });

  it('regenerates the HMAC secret and announces it', async () => {
    const r = await register();
    const { hmacSecret, rotatedAt } = await regenerateHmacSecret(db, box, keys, r.merchant.id);
    expect(hmacSecret).not.toBe(r.hmacSecret);
    const after = await getMerchant(db, r.merchant.id);
    expect(box.open(after.hmacSecretEnc)).toBe(hmacSecret);
    expect(after.hmacSecretRotatedAt).toEqual(rotatedAt);
    expect(announced).toContain(r.merchant.id);
  });
});

describe('API keys', () => {
  it('creates, lists (oldest first, paged, counted) and notes use', async () => {
    const r = await register();
    const t = await createApiKey(db, r.merchant.id, { name: 'test one', isTestKey: true });
    expect(t.apiKeyValue).toMatch(/^sk_test_/);
    expect(t.apiKey).toMatchObject({ merchantId: r.merchant.id, name: 'test one', isTestKey: true, revokedAt: null });
    const page1 = await listApiKeys(db, r.merchant.id, 1, 1);
    const page2 = await listApiKeys(db, r.merchant.id, 2, 1);
    expect(page1.totalCount).toBe(2);
    expect([...page1.items, ...page2.items].map((k) => k.id)).toEqual([r.apiKey.id, t.apiKey.id]);
    const at = new Date('2026-01-02T03:04:05.678Z');
    await touchApiKey(db, t.apiKey.id, at);
    expect((await listApiKeys(db, r.merchant.id, 2, 1)).items[0]!.lastUsedAt).toEqual(at);
  });

  it('revokes: NOT_FOUND for another merchant’s key, never the last active key, a no-op twice', async () => {
    const r = await register();
    const other = await register();
    expect(await codeOf(revokeApiKey(db, keys, r.merchant.id, other.apiKey.id))).toBe('NOT_FOUND');
    expect(await codeOf(revokeApiKey(db, keys, r.merchant.id, r.apiKey.id))).toBe('INVALID_STATE');
    const second = await createApiKey(db, r.merchant.id, { name: 'second', isTestKey: true });
    const seen: string[] = [];
    const revoked = await revokeApiKey(db, keys, r.merchant.id, r.apiKey.id, (k) => void seen.push(k.id));
    expect(seen).toEqual([r.apiKey.id]);
    expect(revoked).toMatchObject({ id: r.apiKey.id, revokedAt: expect.any(Date) });
    expect(announced).toContain(r.merchant.id);
    expect(await revokeApiKey(db, keys, r.merchant.id, r.apiKey.id)).toEqual(revoked);
    expect(await codeOf(revokeApiKey(db, keys, r.merchant.id, second.apiKey.id))).toBe('INVALID_STATE');
    // The caller's permission check refuses before anything changes.
    const denied = revokeApiKey(db, keys, r.merchant.id, second.apiKey.id, () => {
      throw new ApiError('FORBIDDEN', 'no');
    });
    expect(await codeOf(denied)).toBe('FORBIDDEN');
  });

  it('of two concurrent revocations of the last two keys, one is refused', async () => {
    const r = await register();
    const second = await createApiKey(db, r.merchant.id, { name: 'second', isTestKey: false });
    const results = await Promise.allSettled([revokeApiKey(db, keys, r.merchant.id, r.apiKey.id), revokeApiKey(db, keys, r.merchant.id, second.apiKey.id)]);
    expect(results.map((x) => x.status).sort()).toEqual(['fulfilled', 'rejected']);
    const active = (await listApiKeys(db, r.merchant.id, 1, 10)).items.filter((k) => !k.revokedAt);
    expect(active).toHaveLength(1);
  });

  it('resolves a key on the caller’s client, with its merchant’s status and secret', async () => {
    const r = await register();
    const resolver = accountsKeyResolver(db, box);
    const key = await resolver.resolve(hashApiKey(r.apiKeyValue));
    expect(key).toMatchObject({ keyId: r.apiKey.id, merchantId: r.merchant.id, isTestKey: false, revokedAt: null, merchantActive: true });
    expect(await key!.hmacSecret()).toBe(r.hmacSecret);
    expect(await resolver.resolve(hashApiKey('sk_live_nope'))).toBeNull();
  });
});

describe('console sessions', () => {
  it('signs in with a key, slides the idle expiry, ends with the key, signs out, prunes', async () => {
    const r = await register();
    const t0 = new Date();
    const s = await signInToConsole(db, box, r.apiKeyValue, t0);
    expect(s.auth).toMatchObject({ merchantId: r.merchant.id, keyId: r.apiKey.id, isTestMode: false });
    expect(s.expiresAt).toEqual(new Date(t0.getTime() + DEFAULT_CONSOLE_SESSION_POLICY.idleMs));

    const later = new Date(t0.getTime() + 10 * 60_000);
    const slid = await consoleSessionOf(db, s.token, later);
    expect(slid).toMatchObject({ csrfToken: s.csrfToken, auth: s.auth, expiresAt: new Date(later.getTime() + DEFAULT_CONSOLE_SESSION_POLICY.idleMs) });
    expect((await consoleSessionOf(db, s.token, later))!.expiresAt).toEqual(slid!.expiresAt);

    await signOutOfConsole(db, s.token);
    expect(await consoleSessionOf(db, s.token, later)).toBeNull();

    // Revoking the key the session signed in with ends it.
    const second = await createApiKey(db, r.merchant.id, { name: 'second', isTestKey: true });
    const t = await signInToConsole(db, box, second.apiKeyValue, t0);
    expect(t.auth.isTestMode).toBe(true);
    await revokeApiKey(db, keys, r.merchant.id, second.apiKey.id);
    expect(await consoleSessionOf(db, t.token, t0)).toBeNull();

    // A revoked key cannot sign in.
    expect(await signInToConsole(db, box, second.apiKeyValue, t0).then(() => 'signed in', () => 'refused')).toBe('refused');

    const old = await signInToConsole(db, box, r.apiKeyValue, t0);
    const pastIdle = new Date(t0.getTime() + DEFAULT_CONSOLE_SESSION_POLICY.idleMs + 1);
    expect(await pruneConsoleSessions(db, pastIdle)).toBeGreaterThanOrEqual(1);
    expect(await consoleSessionOf(db, old.token, t0)).toBeNull();
  });
});
