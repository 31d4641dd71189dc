import { Type } from '@sinclair/typebox';
import { DataBody, PagedData } from '@pay/schemas';
import { type Api, pageOf } from '@pay/http';
import { assertLiveKey } from '@pay/auth';
import { createApiKey, listApiKeys, regenerateHmacSecret, revokeApiKey, type ApiKey } from '@pay/accounts';
import type { CryptoDeps } from '../../deps';
import { ApiKeyItem, CreateKeyBody, CreatedKey, KeyParams, ListKeysQuery, RegeneratedSecret } from './schemas';

const tags = ['API keys'];

function keyItem(k: ApiKey) {
  return {
    id: k.id,
    name: k.name,
    keyPrefix: k.keyPrefix,
    isTestKey: k.isTestKey,
    status: k.revokedAt ? ('Revoked' as const) : ('Active' as const),
    createdAt: k.createdAt.toISOString(),
    lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
    revokedAt: k.revokedAt?.toISOString() ?? null,
  };
}

export function apiKeyRoutes(api: Api, deps: CryptoDeps): void {
  api.route({
    method: 'get',
    path: '/api/v1/api-keys',
    operationId: 'listApiKeys',
    summary: 'List API keys',
    description: 'All keys of the merchant, active and revoked, oldest first. Key values are never shown again.',
    tags,
    auth: 'key',
    query: ListKeysQuery,
    response: { status: 200, schema: DataBody(PagedData(ApiKeyItem)) },
    handler: async ({ auth, query }) => {
      const { items, totalCount } = await listApiKeys(deps.db, auth.merchantId, query.page, query.pageSize);
      return { body: { data: pageOf(items.map(keyItem), totalCount, query) } };
    },
  });

  api.route({
    method: 'post',
    path: '/api/v1/api-keys',
    operationId: 'createApiKey',
    summary: 'Create an API key',
    description:
      'Live keys start with `sk_live_`, test keys with `sk_test_`. All keys of a merchant share its HMAC secret. ' +
      'A test key can create test keys only.',
    tags,
    auth: 'key',
    idempotent: true,
    body: CreateKeyBody,
    response: { status: 201, schema: DataBody(CreatedKey, { message: true }) },
    errors: ['FORBIDDEN'],
    handler: async ({ auth, body }) => {
      if (!body.isTestKey) assertLiveKey(auth, 'create a live key');
      const { apiKey, apiKeyValue } = await createApiKey(deps.db, auth.merchantId, body);
      return {
        status: 201,
        body: {
          data: {
            id: apiKey.id,
            apiKey: apiKeyValue,
            name: apiKey.name,
            keyPrefix: apiKey.keyPrefix,
            isTestKey: apiKey.isTestKey,
            createdAt: apiKey.createdAt.toISOString(),
          },
          message: 'API key created. Store it now: it is not shown again.',
        },
      };
    },
  });

  api.route({
    method: 'post',
    path: '/api/v1/api-keys/regenerate',
    operationId: 'regenerateHmacSecret',
    summary: 'Regenerate the HMAC secret',
    description: 'Replaces the merchant’s HMAC signing secret. The old secret stops verifying at once. Live keys only.',
    tags,
    auth: 'signed',
    response: { status: 200, schema: DataBody(RegeneratedSecret, { message: true }) },
    errors: ['FORBIDDEN'],
    handler: async ({ auth }) => {
      assertLiveKey(auth, 'regenerate the HMAC secret, which live requests share');
      const { hmacSecret, rotatedAt } = await regenerateHmacSecret(deps.db, deps.secrets, deps.keys, auth.merchantId);
      return {
        body: {
          data: { hmacSecret, rotatedAt: rotatedAt.toISOString() },
          message: 'HMAC secret regenerated. Sign every further request with the new secret.',
        },
      };
    },
  });

  api.route({
    method: 'delete',
    path: '/api/v1/api-keys/:keyId',
    operationId: 'deleteApiKey',
    summary: 'Revoke an API key',
    description:
      'The key stops working at once on both base URLs. Revoking a revoked key is a no-op. The last active key cannot be revoked. ' +
      'A test key can revoke test keys only.',
    tags,
    auth: 'key',
    params: KeyParams,
    response: { status: 200, schema: Type.Object({ message: Type.String(), data: ApiKeyItem }) },
    errors: ['NOT_FOUND', 'INVALID_STATE', 'FORBIDDEN'],
    handler: async ({ auth, params }) => {
      const key = await revokeApiKey(deps.db, deps.keys, auth.merchantId, params.keyId, (target) => {
        if (!target.isTestKey) assertLiveKey(auth, 'revoke a live key');
      });
      return { body: { message: `API key ${key.keyPrefix}… revoked`, data: keyItem(key) } };
    },
  });
}
