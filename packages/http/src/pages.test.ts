import request from 'supertest';
import { Type } from '@sinclair/typebox';
import { ApiError } from '@pay/schemas';
import pino from 'pino';
import { createHttpApp, finishHttpApp } from './app';
import { Api, PAGE_CSP } from './routes';
import { html } from './html';

function appWith(api: Api) {
  const app = createHttpApp({ service: 't', logger: pino({ level: 'silent' }), bodyLimit: '10kb', readiness: [], isShuttingDown: () => false, envelopeFor: () => 'success' });
  app.use(api.router);
  return finishHttpApp(app, () => 'success');
}

const api = new Api({ envelope: 'success', auth: {} })
  .page({
    method: 'get',
    path: '/pay/:id',
    summary: 'a page',
    auth: 'none',
    params: Type.Object({ id: Type.String({ pattern: '^[a-z]+$' }) }),
    handler: ({ params }) => {
      if (params.id === 'gone') throw new ApiError('NOT_FOUND', 'Invoice gone was not found');
      return { html: html`<h1>${params.id}</h1><p>${'<b>merchant text</b>'}</p>` };
    },
  })
  .page({
    method: 'post',
    path: '/pay/:id',
    summary: 'a form',
    auth: 'none',
    params: Type.Object({ id: Type.String() }),
    form: Type.Object({ amount: Type.Integer({ minimum: 1 }) }, { additionalProperties: false }),
    handler: ({ params, form }) => ({ redirect: `/pay/${params.id}?paid=${form.amount}` }),
  });
const app = appWith(api);

describe('pages', () => {
  it('serve HTML with a strict CSP, no caching, and escaped merchant text', async () => {
    const res = await request(app).get('/pay/abc?utm_source=mail');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['content-security-policy']).toBe(PAGE_CSP);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.text).toBe('<h1>abc</h1><p>&lt;b&gt;merchant text&lt;/b&gt;</p>');
  });

  it('render refusals and bad links as HTML pages with their status', async () => {
    const gone = await request(app).get('/pay/gone');
    expect(gone.status).toBe(404);
    expect(gone.headers['content-type']).toMatch(/^text\/html/);
    expect(gone.text).toContain('Invoice gone was not found');
    const bad = await request(app).get('/pay/ABC');
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('Link is invalid');
  });

  it('take url-encoded forms, validated as text, and answer 303 so a reload does not post again', async () => {
    const ok = await request(app).post('/pay/abc').type('form').send('amount=5');
    expect(ok.status).toBe(303);
    expect(ok.headers.location).toBe('/pay/abc?paid=5');
    const bad = await request(app).post('/pay/abc').type('form').send('amount=0&x=1');
    expect(bad.status).toBe(400);
    expect(bad.text).toMatch(/amount must be &gt;= 1/);
    const json = await request(app).post('/pay/abc').send({ amount: 5 });
    expect(json.status).toBe(415);
  });

  it('answer another method with 405 and Allow', async () => {
    const res = await request(app).delete('/pay/abc');
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, POST, HEAD');
  });

  it('refuse an auth level the Api has no guards for, at declaration', () => {
    expect(() => new Api({ envelope: 'success', auth: {} }).page({ method: 'get', path: '/x', summary: 'x', auth: 'session', handler: () => ({ html: html`` }) })).toThrow(
      /no guards for auth level "session"/,
    );
  });
});
