import express, { type Express, type RequestHandler } from 'express';
import type { Logger } from 'pino';
import { jsonWithRawBody } from '@pay/auth';
import { errorHandler, notFoundHandler, type EnvelopeFor, type ErrorPageFor } from './errors';
import { healthRoutes, type ReadinessCheck } from './health';
import { requestContext } from './request-context';
import { refuseKeysInUrl } from './key-in-url';
import { metricsHandler } from './metrics-route';

export interface HttpAppOptions {
  service: string;
  logger: Logger;
  bodyLimit: string;
  readiness: ReadinessCheck[];
  isShuttingDown: () => boolean;
  envelopeFor: EnvelopeFor;
  /** A scrape of /metrics must send `Authorization: Bearer <token>`; open when unset. */
  metricsToken?: string;
  /** TRUST_PROXY: a hop count or comma-separated proxy addresses/CIDRs; empty or absent trusts none. */
  trustProxy?: string;
}

/** Express's `trust proxy` from TRUST_PROXY: `req.ip` is then the client's address from X-Forwarded-For, as far as the trusted proxies vouch. */
export function trustProxySetting(value: string | undefined): boolean | number | string[] {
  const v = (value ?? '').trim();
  if (v === '') return false;
  if (/^\d+$/.test(v)) return Number(v);
  return v.split(',').map((s) => s.trim());
}

/**
 * The skeleton every service shares: request id and logging first, health before body
 * parsing (probes stay cheap), JSON with the raw bytes kept for signature checks.
 * Call `finishHttpApp` after mounting the service's routers.
 */
export function createHttpApp(opts: HttpAppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  // No ETag: express would hash every answer (POSTs included) to offer 304s that API clients
  // do not ask for, and its Buffer copy of the body makes each answer two socket writes.
  app.disable('etag');
  app.set('trust proxy', trustProxySetting(opts.trustProxy));
  app.set('query parser', 'simple');
  app.use(...requestContext(opts.logger));
  app.use(refuseKeysInUrl());
  app.use(healthRoutes(opts.service, opts.readiness, opts.isShuttingDown));
  app.get('/metrics', metricsHandler(opts.metricsToken));
  app.use(jsonWithRawBody({ limit: opts.bodyLimit }));
  return app;
}

/** `errorPage`: a browser's refusals (an unknown path's 404 among them) as the service's pages instead of JSON (see ErrorPageFor). */
export function finishHttpApp(app: Express, envelopeFor: EnvelopeFor, extra: RequestHandler[] = [], errorPage?: ErrorPageFor): Express {
  app.use(...extra, notFoundHandler);
  app.use(errorHandler(envelopeFor, errorPage));
  return app;
}
