import request from 'supertest';
import { invoicingAppForSuite } from './test-support';

const ctx = invoicingAppForSuite();

describe('the OpenAPI document', () => {
  it('lists every v2 and v1 operation, with the choices the spec leaves open written down', async () => {
    const res = await request(ctx.app).get('/openapi.json');
    expect(res.status).toBe(200);
    const doc = res.body as { paths: Record<string, Record<string, { description?: string; responses: Record<string, unknown> }>> };
    expect(Object.keys(doc.paths).sort()).toEqual(
      [
        '/api/v2/analytics',
        '/api/v2/customers',
        '/api/v2/customers/{customerId}/block',
        '/api/v2/customers/{customerId}/unblock',
        '/api/v2/invoices',
        '/api/v2/invoices/{invoiceId}',
        '/api/v2/invoices/{invoiceId}/cancel',
        '/api/v2/invoices/{invoiceId}/refunds',
        '/api/v2/sandbox/invoices/{invoiceId}/pay',
        '/api/v2/kyc/sessions',
        '/api/v2/kyc/sessions/{sessionId}',
        '/api/v1/kyc/sessions',
        '/api/v1/kyc/sessions/{sessionId}',
      ].sort(),
    );
    const text = (path: string, method: string) => doc.paths[path]![method]!.description ?? '';
    expect(text('/api/v2/invoices', 'post')).toMatch(/from 0\.25 to 720/);
    expect(text('/api/v2/invoices/{invoiceId}/refunds', 'post')).toMatch(/The refund record is `\{ id, invoiceId, amount, currency, status, reason, failureReason, createdAt, settledAt \}`/);
    expect(text('/api/v2/invoices/{invoiceId}/refunds', 'post')).toMatch(/stays PAID after any refund, full included/);
    expect(text('/api/v2/analytics', 'get')).toMatch(/Time zone UTC.*weeks start on Monday/);
    expect(text('/api/v2/customers', 'get')).toMatch(/LEVEL_3 \(6\+ payments and KYC verified\)/);
    expect(text('/api/v2/kyc/sessions', 'post')).toMatch(/faceMatchScore` is the evidence for a face comparison/);
    expect(text('/api/v1/kyc/sessions', 'post')).toMatch(/`pending` → `in_progress` → `completed` or `failed`, or `expired`: the v2 NOT_STARTED, IN_PROGRESS, APPROVED, DECLINED and EXPIRED/);
    expect(Object.keys(doc.paths['/api/v1/kyc/sessions']!.post!.responses)).toEqual(expect.arrayContaining(['201', '400', '401', '422']));
    expect(Object.keys(doc.paths['/api/v2/sandbox/invoices/{invoiceId}/pay']!.post!.responses)).toEqual(expect.arrayContaining(['200', '403', '404', '422']));
  });
});
