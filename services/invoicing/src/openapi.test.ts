import request from 'supertest';
import { invoicingAppForSuite } from '../test/test-support';

const ctx = invoicingAppForSuite();

describe('the OpenAPI document', () => {
  it('lists every v2 and v1 operation, with the choices the spec leaves open written down', async () => {
    const res = await request(ctx.app).get('/openapi.json');
    expect(res.status).toBe(200);
    const doc = res.body as { paths: Record<string, Record<string, { description?: string; responses: Record<string, unknown> }>> };
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/api/v2/')).sort()).toEqual(
      [
        '/api/v2/analytics',
        '/api/v2/customers',
        '/api/v2/customers/{customerId}/block',
        '/api/v2/customers/{customerId}/unblock',
        '/api/v2/invoices',
        '/api/v2/invoices/{invoiceId}',
        '/api/v2/invoices/{invoiceId}/cancel',
        '/api/v2/invoices/{invoiceId}/refunds',
        '/api/v2/invoices/{invoiceId}/review/accept',
        '/api/v2/invoices/{invoiceId}/review/refund',
        '/api/v2/invoices/{invoiceId}/receipts',
        '/api/v2/receipts',
        '/api/v2/receipts/{receiptId}',
        '/api/v2/receipts/{receiptId}/file',
        '/api/v2/reviews',
        '/api/v2/sandbox/invoices/{invoiceId}/pay',
        '/api/v2/kyc/sessions',
        '/api/v2/kyc/sessions/{sessionId}',
        '/api/v2/merchant/brand',
        '/api/v2/merchant/brand/logo',
        '/api/v2/webhooks',
        '/api/v2/webhooks/{webhookId}',
        '/api/v2/webhooks/{webhookId}/rotate-secret',
        '/api/v2/webhooks/{webhookId}/deliveries',
        '/api/v2/webhooks/{webhookId}/deliveries/{deliveryId}/resend',
        '/api/v2/webhooks/{webhookId}/replay',
      ].sort(),
    );
    const text = (path: string, method: string) => doc.paths[path]![method]!.description ?? '';
    expect(text('/api/v2/invoices', 'post')).toMatch(/from 1\/60 \(one minute\) to 720/);
    expect(text('/api/v2/invoices/{invoiceId}/refunds', 'post')).toMatch(/The refund record is `\{ id, invoiceId, amount, currency, status, reason, failureReason, createdAt, settledAt \}`/);
    expect(text('/api/v2/invoices/{invoiceId}/refunds', 'post')).toMatch(/stays PAID after any refund, full included/);
    expect(text('/api/v2/analytics', 'get')).toMatch(/Time zone UTC.*weeks start on Monday/);
    expect(text('/api/v2/customers', 'get')).toMatch(/LEVEL_3 \(6\+ payments and KYC verified\)/);
    expect(text('/api/v2/receipts/{receiptId}', 'get')).toMatch(/within 0\.01 RUB of the invoice’s.*Moscow time, ±1 day/);
    expect(Object.keys(doc.paths['/api/v2/receipts/{receiptId}/file']!.get!.responses['200'] as object)).toEqual(['description', 'headers', 'content']);
    expect(text('/api/v2/kyc/sessions', 'post')).toMatch(/faceMatchScore is 1 for d up to 0\.45 and falls linearly to 0 at d = 0\.70: 0\.8 at d = 0\.50 and 0\.4 at d = 0\.60/);
    expect(text('/api/v1/kyc/sessions', 'post')).toMatch(/`pending` → `in_progress` → `completed` or `failed`, or `expired`: the v2 NOT_STARTED, IN_PROGRESS, APPROVED, DECLINED and EXPIRED/);
    expect(Object.keys(doc.paths['/api/v1/kyc/sessions']!.post!.responses)).toEqual(expect.arrayContaining(['201', '400', '401', '422']));
    expect(Object.keys(doc.paths['/api/v2/sandbox/invoices/{invoiceId}/pay']!.post!.responses)).toEqual(expect.arrayContaining(['200', '403', '404', '422']));
  });

  it('requires only the parameters a request cannot leave out: defaulted ones (limit, offset, groupBy) are optional', async () => {
    type Parameter = { name: string; in: string; required: boolean; schema: { default?: unknown } };
    const doc = (await request(ctx.app).get('/openapi.json')).body as { paths: Record<string, Record<string, { parameters: Parameter[] }>> };
    const query = (path: string) => Object.fromEntries(doc.paths[path]!.get!.parameters.filter((p) => p.in === 'query').map((p) => [p.name, p.required]));
    expect(query('/api/v2/invoices')).toEqual({ limit: false, offset: false, status: false, paymentMethod: false, createdFrom: false, createdTo: false, search: false });
    expect(query('/api/v2/customers')).toMatchObject({ limit: false, offset: false });
    expect(query('/api/v2/analytics')).toEqual({ startDate: false, endDate: false, groupBy: false });
    expect(query('/api/v1/analytics')).toEqual({ from: true, to: true, currency: false, groupBy: false });
    // Everywhere: a parameter with a default is never required; every path parameter is.
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        for (const p of op.parameters ?? []) {
          if (p.in === 'path') expect([path, method, p.name, p.required]).toEqual([path, method, p.name, true]);
          if (p.schema.default !== undefined) expect([path, method, p.name, p.required]).toEqual([path, method, p.name, false]);
        }
      }
    }
  });

  it('documents the v1 invoices and how a merchant changes its currencies', async () => {
    const doc = (await request(ctx.app).get('/openapi.json')).body as { paths: Record<string, Record<string, { description?: string }>> };
    for (const path of ['/api/v1/invoices', '/api/v1/invoices/{invoiceId}', '/api/v1/invoices/{invoiceId}/cancel', '/api/v1/sandbox/invoices/{invoiceId}/pay', '/api/v1/kyc/sessions', '/api/v1/kyc/sessions/{sessionId}']) {
      expect(doc.paths).toHaveProperty([path]);
    }
    expect(Object.keys(doc.paths['/api/v1/settings/currencies']!).sort()).toEqual(['get', 'put']);
    expect(doc.paths['/api/v1/invoices']!.post!.description).toMatch(/PUT \/api\/v1\/settings\/currencies/);
    expect(doc.paths).toHaveProperty(['/api/v1/analytics']);
    expect(doc.paths).toHaveProperty(['/api/v1/batch/invoices/{batchId}']);
    const batch = doc.paths['/api/v1/batch/invoices']!.post! as { requestBody?: { content: Record<string, unknown> }; responses: Record<string, unknown> };
    expect(Object.keys(batch.requestBody!.content)).toEqual(['multipart/form-data']);
    expect(Object.keys(batch.responses)).toEqual(expect.arrayContaining(['201', '400', '401', '413', '422']));
    // v1's error envelope, named once; its `details` are ErrorDetail, whose rows say where in the file.
    const refused = batch.responses['422'] as { 'x-error-codes': string[]; content: Record<string, { schema: { $ref: string } }> };
    expect(refused.content['application/json']!.schema).toEqual({ $ref: '#/components/schemas/V1ErrorResponse' });
    expect(refused['x-error-codes']).toContain('NO_VALID_ROWS');
    const schemas = (doc as unknown as { components: { schemas: Record<string, { properties: Record<string, unknown>; required: string[] }> } }).components.schemas;
    expect(schemas.V1ErrorResponse!.properties.error).toEqual({ $ref: '#/components/schemas/Error' });
    expect(schemas.Error!.properties.details).toMatchObject({ items: { $ref: '#/components/schemas/ErrorDetail' } });
    const rowError = schemas.ErrorDetail!;
    expect(Object.keys(rowError.properties)).toEqual(['field', 'message', 'row', 'externalId']);
    expect(rowError.required).toEqual(['field', 'message']);
    const exported = doc.paths['/api/v1/batch/invoices/{batchId}/export']!.get! as { responses: Record<string, { content?: Record<string, unknown> }> };
    expect(Object.keys(exported.responses['200']!.content!)).toEqual(['text/csv']);
  });
});
