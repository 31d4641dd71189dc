import { Writable } from 'node:stream';
import express from 'express';
import request from 'supertest';
import { createLogger } from '@pay/runtime';
import { ApiError } from '@pay/schemas';
import { requestContext } from './request-context';
import { errorHandler } from './errors';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      lines.push(String(chunk));
      cb();
    },
  });
  return { lines, stream };
}

describe('logs', () => {
  it('are JSON with the request id, and never carry keys, signatures, cookies or bodies', async () => {
    const { lines, stream } = capture();
    const logger = createLogger('test', 'info', stream);
    const app = express();
    app.use(...requestContext(logger));
    app.use(express.json());
    app.post('/x', (req, res) => {
      req.log.info({ apiKey: 'sk_live_SECRET1', nested: { hmacSecret: 'hs_SECRET2' } }, 'handled');
      res.json({ apiKey: 'sk_live_SECRET3' });
    });
    await request(app)
      .post('/x?token=abc')
      .set('X-Api-Key', 'sk_live_SECRET4')
      .set('X-Signature', 'SIGSECRET5')
      .set('Cookie', 'sid=SECRET6')
      .send({ password: 'SECRET7' });
    const text = lines.join('');
    for (let i = 1; i <= 7; i++) expect(text).not.toMatch(new RegExp(`SECRET${i}`));
    expect(text).not.toContain('token=abc');
    const entries = lines.map((l) => JSON.parse(l));
    const done = entries.find((e) => e.msg === 'request completed');
    expect(done).toMatchObject({ service: 'test', level: 'info', req: { method: 'POST', url: '/x' }, res: { statusCode: 200 } });
    expect(done.req.id).toMatch(/^req_/);
    expect(done.errorCode).toBeUndefined();
  });

  it('name the error code of a refused request', async () => {
    const { lines, stream } = capture();
    const app = express();
    app.use(...requestContext(createLogger('test', 'info', stream)));
    app.get('/refused', (_req, _res, next) => next(new ApiError('INSUFFICIENT_BALANCE', 'no')));
    app.use(errorHandler(() => 'success'));
    expect((await request(app).get('/refused')).status).toBe(422);
    const done = lines.map((l) => JSON.parse(l)).find((e) => e.msg === 'request completed');
    expect(done).toMatchObject({ res: { statusCode: 422 }, errorCode: 'INSUFFICIENT_BALANCE' });
  });
});
