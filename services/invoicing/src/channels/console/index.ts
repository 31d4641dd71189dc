import type { Router } from 'express';
import { consoleGuards } from '@pay/accounts';
import { Api, PgIdempotencyStore, type Operation } from '@pay/http';
import type { RequestHandler } from 'express';
import type { InvoicingDeps } from '../../deps';
import { consolePages, consoleErrorPage } from './pages';
import { consoleRoutes } from './routes';
import { consoleKycPages, consoleKycRoutes } from './kyc';
import { consoleReviewPages, consoleReviewRoutes } from './payment-reviews';
import { queueDashboard } from './queues';
import { consoleCryptoPages } from './crypto';
import { consolePaymentPages, consolePaymentRoutes } from './payments';
import { consoleBrandPages, consoleBrandRoutes } from './brand';

/**
 * The merchant web console at /console: its JSON API (`session` auth: cookie, CSRF on
 * changes) and its pages (their CSS and JS are the service's public assets, see
 * assets.ts). `anonymous` is the rate limit for sign-in, the same as for other
 * unauthenticated calls.
 */
export function buildConsole(deps: InvoicingDeps, anonymous: RequestHandler[]): { routers: Router[]; operations: Operation[] } {
  const guards = consoleGuards({
    db: deps.db,
    redis: deps.redis,
    logger: deps.logger,
    clock: deps.clock,
    perKeyPerSecond: deps.config.RATE_LIMIT_PER_SECOND,
  });
  // Refunds from the console take an Idempotency-Key as the API's do (scoped by merchant, mode and path).
  const idempotency = new PgIdempotencyStore(deps.db, deps.secrets, 'invoicing');
  const api = new Api({ envelope: 'success', auth: { none: anonymous, session: guards.api }, idempotency, validateResponses: deps.config.NODE_ENV !== 'production' });
  const pages = new Api({ envelope: 'success', auth: { none: anonymous, session: guards.page }, errorPage: consoleErrorPage });
  consoleRoutes(api, deps);
  consoleKycRoutes(api, deps);
  consoleReviewRoutes(api, deps);
  consolePaymentRoutes(api, deps);
  consoleBrandRoutes(api, deps);
  consolePages(pages, deps);
  consoleKycPages(pages, deps);
  consoleReviewPages(pages, deps);
  consolePaymentPages(pages, deps);
  consoleCryptoPages(pages, deps);
  consoleBrandPages(pages, deps);
  return {
    routers: [api.router, pages.router, queueDashboard(deps, guards.page)],
    operations: api.operations,
  };
}
