import { Type } from '@sinclair/typebox';
import { buildOpenApi } from './openapi';
import { Api } from './routes';

const info = { title: 't', version: '1', description: '', serverUrl: 'http://x' };
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

describe('named schemas (components.schemas)', () => {
  const Thing = Type.Object({ id: Type.String() }, { title: 'Thing', additionalProperties: false });
  const op = (operationId: string, schema: ReturnType<typeof Type.Object>, errors: ('NOT_FOUND' | 'CONFLICT')[] = []) => ({
    ...route(`/${operationId}`, operationId),
    errors,
    response: { status: 200, schema },
  });
  type Doc = {
    components: { schemas: Record<string, { title?: string; properties?: Record<string, unknown>; enum?: string[] }> };
    paths: Record<string, { get: { responses: Record<string, { 'x-error-codes'?: string[]; content: Record<string, { schema: unknown; example?: unknown; examples?: Record<string, { value: unknown }> }> }> } }>;
  };

  it('holds a titled schema once and refers to it with $ref wherever it is used; an answer without a title is named after its operation', () => {
    const api = new Api({ envelope: 'success', auth: { none: [] } })
      .route(op('getThing', Type.Object({ thing: Thing })))
      .route(op('listThings', Type.Object({ data: Type.Array({ ...Thing, description: 'Some things' }) })));
    const doc = buildOpenApi(info, api.operations) as unknown as Doc;
    expect(doc.components.schemas.Thing).toEqual({ title: 'Thing', additionalProperties: false, type: 'object', required: ['id'], properties: { id: { type: 'string' } } });
    expect(doc.components.schemas.GetThingResponse!.properties!.thing).toEqual({ $ref: '#/components/schemas/Thing' });
    // A use that only words it differently keeps its words beside the $ref.
    expect(doc.components.schemas.ListThingsResponse!.properties!.data).toEqual({ type: 'array', items: { $ref: '#/components/schemas/Thing', description: 'Some things' } });
    expect(doc.paths['/getThing']!.get.responses['200']!.content['application/json']!.schema).toEqual({ $ref: '#/components/schemas/GetThingResponse' });
    expect(JSON.stringify(doc.paths)).not.toContain('"type":"object"');
  });

  it('refuses two different schemas under one title, and a title that is not a component name', () => {
    const other = Type.Object({ id: Type.Integer() }, { title: 'Thing' });
    const api = new Api({ envelope: 'success', auth: { none: [] } }).route(op('a', Type.Object({ thing: Thing }))).route(op('b', Type.Object({ thing: other })));
    expect(() => buildOpenApi(info, api.operations)).toThrow('Two different schemas are both titled "Thing"');
    const spaced = new Api({ envelope: 'success', auth: { none: [] } }).route(op('a', Type.Object({ thing: Type.Object({}, { title: 'v2 thing' }) })));
    expect(() => buildOpenApi(info, spaced.operations)).toThrow('The schema titled "v2 thing" cannot be a component');
  });

  it('has one Error schema; each error answer refers to its envelope and lists its codes, with an example of each', () => {
    const api = new Api({ envelope: 'success', auth: { none: [] } }).route(op('getThing', Type.Object({ thing: Thing }), ['NOT_FOUND', 'CONFLICT']));
    const doc = buildOpenApi(info, api.operations) as unknown as Doc;
    expect(doc.components.schemas.Error!.properties!.code).toEqual({ $ref: '#/components/schemas/ErrorCode' });
    expect(doc.components.schemas.ErrorCode!.enum).toEqual(['CONFLICT', 'METHOD_NOT_ALLOWED', 'NOT_FOUND', 'RATE_LIMITED', 'VALIDATION_ERROR']);
    const responses = doc.paths['/getThing']!.get.responses;
    expect(Object.keys(responses)).toEqual(['200', '400', '404', '405', '409', '429']);
    expect(responses['404']!['x-error-codes']).toEqual(['NOT_FOUND']);
    expect(responses['404']!.content['application/json']!.schema).toEqual({ $ref: '#/components/schemas/ErrorResponse' });
    expect(responses['404']!.content['application/json']!.examples!.NOT_FOUND!.value).toEqual({ success: false, error: { code: 'NOT_FOUND', message: expect.any(String) } });
    // The success answer has an example made from its schema.
    expect(responses['200']!.content['application/json']!.example).toEqual({ success: true, thing: { id: 'Order 42' } });
  });
});
