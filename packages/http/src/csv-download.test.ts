import request from 'supertest';
import { Type } from '@sinclair/typebox';
import pino from 'pino';
import { createHttpApp, finishHttpApp } from './app';
import { buildOpenApi } from './openapi';
import { Api } from './routes';

const api = new Api({ envelope: 'bare', auth: { none: [] }, validateResponses: true }).route({
  method: 'get',
  path: '/export',
  operationId: 'exportRows',
  summary: 'export',
  auth: 'none',
  response: { status: 200, schema: Type.Object({}), file: ['text/csv'], description: 'CSV' },
  handler: () => ({ file: { bytes: Buffer.from('a,b\r\n1,2\r\n'), type: 'text/csv; charset=utf-8', name: 'export.csv' } }),
});
const app = finishHttpApp(
  (() => {
    const a = createHttpApp({ service: 't', logger: pino({ level: 'silent' }), bodyLimit: '10kb', readiness: [], isShuttingDown: () => false, envelopeFor: () => 'bare' });
    a.use(api.router);
    return a;
  })(),
  () => 'bare',
);

describe('a CSV download (response.file)', () => {
  it('answers the bytes as they are, as an attachment of its type, and is documented so', async () => {
    const res = await request(app).get('/export');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    expect(res.headers['content-disposition']).toBe('attachment; filename="export.csv"');
    expect(res.text).toBe('a,b\r\n1,2\r\n');
    const doc = buildOpenApi({ title: 't', version: '1', description: '', serverUrl: 'http://x' }, api.operations) as unknown as {
      paths: Record<string, { get: { responses: Record<string, { content: Record<string, unknown> }> } }>;
    };
    expect(Object.keys(doc.paths['/export']!.get.responses['200']!.content)).toEqual(['text/csv']);
  });
});
