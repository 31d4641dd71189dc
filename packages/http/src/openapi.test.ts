import { Type } from '@sinclair/typebox';
import { buildOpenApi } from './openapi';
import { Api } from './routes';

const info = { title: 't', version: '1', description: '', serverUrl: 'http://x', signing: '' };
const route = (path: string, operationId: string) => ({
  method: 'get' as const,
  path,
  operationId,
  summary: path,
  auth: 'none' as const,
  response: { status: 200, schema: Type.Object({}) },
  handler: () => ({ body: {} }),
});

it('names each operation by its operationId, and refuses a document where two share one', () => {
  const api = new Api({ envelope: 'success', auth: { none: [] } }).route(route('/a', 'getA')).route(route('/b', 'getB'));
  const doc = buildOpenApi(info, api.operations) as unknown as { paths: Record<string, { get: { operationId: string; security: unknown[] } }> };
  expect([doc.paths['/a']!.get.operationId, doc.paths['/b']!.get.operationId]).toEqual(['getA', 'getB']);
  // A public operation says so: an explicit empty security list, not none at all.
  expect(doc.paths['/a']!.get.security).toEqual([]);
  const twice = new Api({ envelope: 'success', auth: { none: [] } }).route(route('/a', 'getA')).route(route('/c', 'getA'));
  expect(() => buildOpenApi(info, twice.operations)).toThrow('operationId "getA" names both GET /a and GET /c: give each its own');
});

it('gives each outgoing webhook a stable operationId and an explicit empty security list', () => {
  const doc = buildOpenApi(info, [], { 'kyc.manual_review': { summary: 's', body: Type.Object({}), headers: {} } }) as {
    webhooks: Record<string, { post: { operationId: string; security: unknown[] } }>;
  };
  expect(doc.webhooks['kyc.manual_review']!.post).toMatchObject({ operationId: 'kycManualReviewWebhook', security: [] });
});
