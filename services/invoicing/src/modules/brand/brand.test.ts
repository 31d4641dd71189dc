import request from 'supertest';
import { signedHeaders } from '@pay/auth';
import { multipartBody } from '../../../test/receipts/test-fixtures';
import { invoicingAppForSuite, newMerchant, v2Request, type TestMerchant } from '../../../test/test-support';

const ctx = invoicingAppForSuite();

/** The smallest valid PNG (1×1). */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

function uploadLogo(m: TestMerchant, bytes: Buffer, declared = 'image/png') {
  const path = '/api/v2/merchant/brand/logo';
  const { body, contentType } = multipartBody('file', 'logo.png', declared, bytes);
  let req = request(ctx.app).put(path).set('x-api-key', m.apiKey).set('Content-Type', contentType);
  for (const [k, v] of Object.entries(signedHeaders('v2', m.hmacSecret, { method: 'PUT', path, body }))) req = req.set(k, v);
  return req.send(body);
}

describe('the merchant brand API (v2, signed)', () => {
  it('starts as the companyName in Russian, then takes a name, colour, language and logo, and clears them', async () => {
    const m = await newMerchant(ctx.deps);
    const first = await v2Request(ctx.app, m, 'get', '/api/v2/merchant/brand');
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ success: true, brand: { displayName: 'Acme Ltd', brandColor: null, brandTextColor: null, logoUrl: null, defaultLanguage: 'ru' } });

    const changed = await v2Request(ctx.app, m, 'patch', '/api/v2/merchant/brand', { displayName: 'Acme Coffee', brandColor: '#FFD500', defaultLanguage: 'en' });
    expect(changed.status).toBe(200);
    expect(changed.body.brand).toEqual({ displayName: 'Acme Coffee', brandColor: '#ffd500', brandTextColor: '#000000', logoUrl: null, defaultLanguage: 'en' });

    const logo = await uploadLogo(m, PNG, 'application/octet-stream');
    expect(logo.status).toBe(200);
    expect(logo.body.brand.logoUrl).toBe(`data:image/png;base64,${PNG.toString('base64')}`);
    expect((await v2Request(ctx.app, m, 'get', '/api/v2/merchant/brand')).body.brand).toMatchObject({ displayName: 'Acme Coffee', logoUrl: logo.body.brand.logoUrl });

    expect((await v2Request(ctx.app, m, 'delete', '/api/v2/merchant/brand/logo')).body.brand.logoUrl).toBeNull();
    const cleared = await v2Request(ctx.app, m, 'patch', '/api/v2/merchant/brand', { displayName: null, brandColor: null });
    expect(cleared.body.brand).toEqual({ displayName: 'Acme Ltd', brandColor: null, brandTextColor: null, logoUrl: null, defaultLanguage: 'en' });
  });

  it('refuses bad input with 4xx naming the field, and changes nothing', async () => {
    const m = await newMerchant(ctx.deps);
    const bad = async (body: unknown, field: string) => {
      const r = await v2Request(ctx.app, m, 'patch', '/api/v2/merchant/brand', body);
      expect([r.status, r.body.error.code]).toEqual([400, 'VALIDATION_ERROR']);
      // Exactly the bad field: nothing else of the body is blamed.
      expect(r.body.error.details.map((d: { field: string }) => d.field)).toEqual([field]);
    };
    await bad({ brandColor: 'red' }, 'brandColor');
    await bad({ displayName: 'Evil\r\nBcc: x@example.test' }, 'displayName');
    await bad({ displayName: '' }, 'displayName');
    await bad({ defaultLanguage: 'de' }, 'defaultLanguage');
    await bad({ logoUrl: 'https://example.test/x.png' }, 'logoUrl');
    const svg = await uploadLogo(m, Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'), 'image/svg+xml');
    expect([svg.status, svg.body.error.code, svg.body.error.details]).toEqual([400, 'VALIDATION_ERROR', [{ field: 'file', message: 'must be one of: image/png, image/jpeg' }]]);
    const big = await uploadLogo(m, Buffer.concat([PNG, Buffer.alloc(70_000)]));
    expect(big.status).toBe(413);
    expect((await v2Request(ctx.app, m, 'get', '/api/v2/merchant/brand')).body.brand).toEqual({
      displayName: 'Acme Ltd',
      brandColor: null,
      brandTextColor: null,
      logoUrl: null,
      defaultLanguage: 'ru',
    });
  });

  it('needs a signature', async () => {
    const m = await newMerchant(ctx.deps);
    const r = await request(ctx.app).get('/api/v2/merchant/brand').set('x-api-key', m.apiKey);
    expect(r.status).toBe(401);
  });

  it('serves the colour’s stylesheet the pages link', async () => {
    const css = await request(ctx.app).get('/brand/0b3d91.css');
    expect(css.status).toBe(200);
    expect(css.text).toContain('background-color:#0b3d91;color:#ffffff');
  });
});
