import request from 'supertest';
import { Router } from 'express';
import { createHttpApp, finishHttpApp } from './app';
import { clearStuck, createLogger, markStuck } from '@pay/runtime';

function app(metricsToken?: string) {
  const a = createHttpApp({
    service: 'test',
    logger: createLogger('test', 'silent'),
    bodyLimit: '10kb',
    readiness: [],
    isShuttingDown: () => false,
    envelopeFor: () => 'success',
    metricsToken,
  });
  const things = Router();
  things.get('/:id', (_req, res) => {
    res.json({ ok: true });
  });
  a.use('/things', things);
  return finishHttpApp(a, () => 'success');
}

describe('/healthz', () => {
  it('answers 503 naming the stuck parts while any is (a queue worker that stopped taking jobs), and says so in /metrics (process_stuck)', async () => {
    const a = app();
    expect((await request(a).get('/healthz')).body).toEqual({ status: 'ok', service: 'test' });
    markStuck('queue worker crypto-withdrawals', '76 jobs waiting, none started in 30 s with a slot free');
    try {
      const stuck = await request(a).get('/healthz');
      expect(stuck.status).toBe(503);
      expect(stuck.body).toEqual({ status: 'stuck', service: 'test', stuck: { 'queue worker crypto-withdrawals': '76 jobs waiting, none started in 30 s with a slot free' } });
      expect((await request(a).get('/metrics')).text).toMatch(/^process_stuck\{part="queue worker crypto-withdrawals"\} 1$/m);
    } finally {
      clearStuck('queue worker crypto-withdrawals');
    }
    const alive = await request(a).get('/healthz');
    expect(alive.status).toBe(200);
    expect((await request(a).get('/metrics')).text).not.toMatch(/^process_stuck\{/m);
  });
});

describe('/metrics', () => {
  it('says whether the service would answer /readyz 200 (service_ready), evaluated at the scrape', async () => {
    let dbUp = true;
    let shuttingDown = false;
    const a = finishHttpApp(
      createHttpApp({
        service: 'ready-test',
        logger: createLogger('test', 'silent'),
        bodyLimit: '10kb',
        readiness: [{ name: 'postgres', check: async () => (dbUp ? 1 : Promise.reject(new Error('connection refused'))) }],
        isShuttingDown: () => shuttingDown,
        envelopeFor: () => 'success',
      }),
      () => 'success',
    );
    const ready = async () => /^service_ready\{service="ready-test"\} (\d)$/m.exec((await request(a).get('/metrics')).text)?.[1];
    expect(await ready()).toBe('1');
    dbUp = false;
    expect(await ready()).toBe('0');
    expect((await request(a).get('/readyz')).status).toBe(503);
    dbUp = true;
    shuttingDown = true;
    expect(await ready()).toBe('0');
  });

  it('counts requests per route pattern and status, never per raw path', async () => {
    const a = app();
    await request(a).get('/things/1');
    await request(a).get('/things/2');
    await request(a).get('/nowhere/3');
    const res = await request(a).get('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.text).toMatch(/^http_request_duration_seconds_count\{method="GET",route="\/things\/:id",status="200"\} [2-9]\d*$/m);
    expect(res.text).toMatch(/^http_request_duration_seconds_count\{method="GET",route="unmatched",status="404"\} [1-9]\d*$/m);
    expect(res.text).not.toMatch(/route="\/things\/1"/);
    expect(res.text).toMatch(/^process_resident_memory_bytes \d+/m);
  });

  it('needs the bearer token when one is configured', async () => {
    const a = app('a-long-metrics-token-0123456789');
    expect((await request(a).get('/metrics')).status).toBe(401);
    expect((await request(a).get('/metrics').set('Authorization', 'Bearer wrong')).status).toBe(401);
    expect((await request(a).get('/metrics').set('Authorization', 'Bearer a-long-metrics-token-0123456789')).status).toBe(200);
  });
});
