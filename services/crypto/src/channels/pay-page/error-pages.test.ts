import request from 'supertest';
import { PAGE_CSP } from '@pay/http';
import { cryptoAppForSuite } from '../../../test/test-support';
import { TEXTS } from './i18n';

// finishHttpApp's errorPage (app.ts): a browser that lands on a path nothing answers gets the
// payment page's 404 in its language; API clients keep the API's JSON error.
const ctx = cryptoAppForSuite();
const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

describe('the crypto service to a browser on an unknown path', () => {
  it('answers the payment page’s 404 in the payer’s language: ?lang=, else Accept-Language, else Russian', async () => {
    for (const [path, acceptLanguage, language] of [
      ['/nowhere', 'kk-KZ,kk;q=0.9,ru;q=0.5', 'kk'],
      ['/invoices/abc', 'en-GB,en;q=0.9', 'en'],
      ['/nowhere?lang=en', 'kk', 'en'],
      ['/nowhere', 'de-DE', 'ru'],
      ['/', undefined, 'ru'],
    ] as const) {
      const req = request(ctx.app).get(path).set('Accept', BROWSER);
      const res = await (acceptLanguage ? req.set('Accept-Language', acceptLanguage) : req);
      expect([path, res.status, res.headers['content-type']]).toEqual([path, 404, expect.stringMatching(/^text\/html/)]);
      expect(res.text).toContain(`<html lang="${language}">`);
      expect(res.text).toContain(`<h1>${TEXTS[language].notFoundTitle}</h1>`);
      expect(res.text).toContain(TEXTS[language].brokenLinkText);
      expect(res.text).not.toContain('NOT_FOUND');
      expect([res.headers['content-security-policy'], res.headers['cache-control']]).toEqual([PAGE_CSP, 'no-store']);
    }
  });

  it('keeps JSON for API clients: a client that prefers JSON, and any /api/ path', async () => {
    const json = await request(ctx.app).get('/nowhere').set('Accept', 'application/json').set('Accept-Language', 'ru');
    expect([json.status, json.headers['content-type']]).toEqual([404, expect.stringMatching(/^application\/json/)]);
    expect(json.body).toMatchObject({ success: false, error: { code: 'NOT_FOUND' } });
    const noAccept = await request(ctx.app).get('/nowhere');
    expect(noAccept.body).toMatchObject({ success: false, error: { code: 'NOT_FOUND' } });
    const api = await request(ctx.app).get('/api/v1/nothing-here').set('Accept', BROWSER).set('Accept-Language', 'ru');
    expect([api.status, api.headers['content-type']]).toEqual([404, expect.stringMatching(/^application\/json/)]);
    expect(api.body).toMatchObject({ success: false, error: { code: 'NOT_FOUND' } });
  });
});
