import { stuckParts, watchReadiness } from '@pay/runtime';
import { sendJson } from './json-reply';
import { Router } from 'express';

export type ReadinessCheck = { name: string; check: () => Promise<unknown> };

const CHECK_TIMEOUT_MS = 2000;

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
    p.then(resolve, reject).finally(() => clearTimeout(t));
  });
}

/**
 * /healthz says the process is alive (restart me if not): 503 naming its stuck parts while any
 * is (markStuck: a queue worker that stopped taking jobs). /readyz says its dependencies
 * answer (send me traffic if so). During shutdown readiness fails first, so a balancer
 * drains the instance before it stops.
 */
export function healthRoutes(service: string, checks: ReadinessCheck[], isShuttingDown: () => boolean): Router {
  const router = Router();
  const readiness = async () => {
    const results: Record<string, string> = {};
    let ready = !isShuttingDown();
    await Promise.all(
      checks.map(async (c) => {
        try {
          await withTimeout(c.check(), CHECK_TIMEOUT_MS);
          results[c.name] = 'ok';
        } catch (err) {
          ready = false;
          results[c.name] = `failing: ${(err as Error).message}`;
        }
      }),
    );
    if (isShuttingDown()) results.shutdown = 'in progress';
    return { ready, results };
  };
  // The same answer as /readyz, as the service_ready gauge at every scrape (the alert on it).
  watchReadiness(service, async () => (await readiness()).ready);
  router.get('/healthz', (_req, res) => {
    const stuck = stuckParts();
    if (Object.keys(stuck).length > 0) sendJson(res, 503, { status: 'stuck', service, stuck });
    else sendJson(res, 200, { status: 'ok', service });
  });
  router.get('/readyz', async (_req, res) => {
    const { ready, results } = await readiness();
    sendJson(res, ready ? 200 : 503, { status: ready ? 'ready' : 'not ready', service, checks: results });
  });
  return router;
}
