import { timingSafeEqual, createHash } from 'node:crypto';
import type { RequestHandler } from 'express';
import { metricsRegistry } from '@pay/runtime';

const digest = (s: string) => createHash('sha256').update(s).digest();

/**
 * GET /metrics in Prometheus text format. With a token configured (METRICS_TOKEN), a scrape
 * must send `Authorization: Bearer <token>`: the metrics name routes and volumes, which a
 * public base URL should not tell anyone.
 */
export function metricsHandler(token: string | undefined): RequestHandler {
  const expected = token ? digest(`Bearer ${token}`) : null;
  return async (req, res, next) => {
    if (expected && !timingSafeEqual(digest(req.get('authorization') ?? ''), expected)) {
      res.status(401).set('WWW-Authenticate', 'Bearer').type('text/plain').send('metrics need Authorization: Bearer <METRICS_TOKEN>\n');
      return;
    }
    try {
      res.type(metricsRegistry.contentType).send(await metricsRegistry.metrics());
    } catch (err) {
      next(err);
    }
  };
}
