import { Type } from '@sinclair/typebox';
import { NullableTimestamp, PageQuery, Timestamp, Uuid, StringEnum } from '@pay/schemas';

export const CreateKeyBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' }),
    isTestKey: Type.Boolean({ description: 'A test key puts its requests in test mode (sandbox only, data kept apart)' }),
  },
  { additionalProperties: false },
);

export const ApiKeyItem = Type.Object({
  id: Uuid,
  name: Type.String(),
  keyPrefix: Type.String({ description: 'The first characters of the key, to tell keys apart' }),
  isTestKey: Type.Boolean(),
  status: StringEnum(['Active', 'Revoked'] as const),
  createdAt: Timestamp,
  lastUsedAt: NullableTimestamp,
  revokedAt: NullableTimestamp,
}, { title: 'ApiKey' });

export const CreatedKey = Type.Object({
  id: Uuid,
  apiKey: Type.String({ description: 'The key value; shown only in this response' }),
  name: Type.String(),
  keyPrefix: Type.String(),
  isTestKey: Type.Boolean(),
  createdAt: Timestamp,
}, { title: 'CreatedApiKey' });

export const RegeneratedSecret = Type.Object({
  hmacSecret: Type.String({ description: 'The new signing secret; the previous one stopped working' }),
  rotatedAt: Timestamp,
}, { title: 'HmacSecret' });

export const ListKeysQuery = Type.Object(PageQuery, { additionalProperties: false });
export const KeyParams = Type.Object({ keyId: Uuid });
