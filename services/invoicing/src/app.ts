import type { Express, Request } from 'express';
import { brandStylesheets, merchantGuards } from '@pay/accounts';
import { postgresReady } from '@pay/db';
import { Api, buildOpenApi, createHttpApp, docsRoutes, finishHttpApp, PgIdempotencyStore, staticAssets, type Envelope } from '@pay/http';
import { redisReady } from '@pay/runtime';
import type { InvoicingDeps } from './deps';
import { buildConsole } from './channels/console';
import { invoicingEvents } from './event-catalogue';
import { invoiceRoutes, sandboxRoutes } from './modules/invoices/routes';
import { refundRoutes } from './modules/refunds/routes';
import { reviewRoutes } from './modules/reviews/routes';
import { customerRoutes } from './modules/customers/routes';
import { brandRoutes } from './modules/brand/routes';
import { analyticsRoutes } from './modules/analytics/routes';
import { receiptRoutes } from './modules/receipts/routes';
import { webhookRoutes } from './modules/webhooks/routes';
import { v1InvoiceRoutes } from './modules/invoices/v1/routes';
import { v1AnalyticsRoutes } from './modules/analytics/v1/routes';
import { batchRoutes } from './modules/batch/routes';
import { paymentPageRoutes } from './channels/pay-page/routes';
import { kycV1Routes, kycV2Routes } from './modules/kyc/routes';
import { kycPageRoutes } from './modules/kyc/page';
import { errorPage } from './channels/pay-page/view';
import { requestLanguage } from './languages';
import { ASSETS_PATH, PUBLIC_DIR } from './assets';
import { mountAcquirers } from './payments/registry';

/** v1 answers bare objects, v2 the `success` envelope. */
export const envelopeFor = (req: Request | string): Envelope =>
  (typeof req === 'string' ? req : req.path).startsWith('/api/v1') ? 'bare' : 'success';


/** The service's three faces, each an `Api` with its own envelope and guards. */
export interface InvoicingApis {
  /** `/api/v2/*`: every operation signed, `{ success, ... }` answers. */
  v2: Api;
  /** `/api/v1/*`: key only, bare answers. */
  v1: Api;
  /** Hosted pages for customers (payment, KYC): public, rate limited per client address (RATE_LIMIT_PAGES_PER_MINUTE) and per invoice (RATE_LIMIT_PAGE_PER_INVOICE_PER_MINUTE). */
  pages: Api;
}

export function buildInvoicingApp(deps: InvoicingDeps): { app: Express; apis: InvoicingApis } {
  const guards = merchantGuards({
    service: 'invoicing',
    signing: 'v2',
    resolver: deps.keys.resolver,
    redis: deps.redis,
    logger: deps.logger,
    clock: deps.clock,
    limits: {
      perKeyPerSecond: deps.config.RATE_LIMIT_PER_SECOND,
      anonymousPerMinute: deps.config.RATE_LIMIT_ANONYMOUS_PER_MINUTE,
      pagesPerMinute: deps.config.RATE_LIMIT_PAGES_PER_MINUTE,
      pagesPerInvoicePerMinute: deps.config.RATE_LIMIT_PAGE_PER_INVOICE_PER_MINUTE,
    },
  });
  const idempotency = new PgIdempotencyStore(deps.db, deps.secrets, 'invoicing');
  const validateResponses = deps.config.NODE_ENV !== 'production';
  const apis: InvoicingApis = {
    v2: new Api({ envelope: 'success', auth: { signed: guards.signed }, idempotency, validateResponses }),
    v1: new Api({ envelope: 'bare', auth: { key: guards.key }, idempotency, validateResponses }),
    pages: new Api({ envelope: 'success', auth: { none: guards.page }, errorPage: (err, req) => errorPage(err, req.method, requestLanguage(req).language) }),
  };
  invoiceRoutes(apis.v2, deps);
  refundRoutes(apis.v2, deps);
  sandboxRoutes(apis.v2, deps);
  reviewRoutes(apis.v2, deps);
  customerRoutes(apis.v2, deps);
  brandRoutes(apis.v2, deps);
  analyticsRoutes(apis.v2, deps);
  receiptRoutes(apis.v2, deps);
  webhookRoutes(apis.v2, deps);
  v1InvoiceRoutes(apis.v1, deps);
  v1AnalyticsRoutes(apis.v1, deps);
  batchRoutes(apis.v1, deps);
  kycV2Routes(apis.v2, deps);
  kycV1Routes(apis.v1, deps);
  paymentPageRoutes(apis.pages, deps);
  kycPageRoutes(apis.pages, deps);
  const webConsole = buildConsole(deps, guards.none);

  const app = createHttpApp({
    service: 'invoicing',
    logger: deps.logger,
    bodyLimit: deps.config.BODY_LIMIT,
    isShuttingDown: deps.isShuttingDown,
    envelopeFor,
    metricsToken: deps.config.METRICS_TOKEN,
    trustProxy: deps.config.TRUST_PROXY,
    readiness: [
      { name: 'postgres', check: () => postgresReady(deps.db.$kysely) },
      { name: 'redis', check: () => redisReady(deps.redis) },
    ],
  });
  app.use(
    docsRoutes('Invoicing API', () =>
      buildOpenApi(
        {
          title: 'Invoicing API',
          version: '2.0.0',
          description: 'Fiat invoices (SBP, card), KYC sessions, receipts, customers, analytics and batch invoicing.',
          serverUrl: deps.config.PUBLIC_URL,
          signing: { style: 'v2', example: { method: 'POST', path: '/api/v2/invoices', body: '{"amount":1490.9,"description":"Warm blanket"}' } },
          credentialsNote: 'v1 operations (`/api/v1/*`) take the API key alone (`X-Api-Key`), unsigned.',
        },
        [...apis.v2.operations, ...apis.v1.operations],
        invoicingEvents.webhookDocs(),
      ),
    ),
  );
  app.use(staticAssets(ASSETS_PATH, PUBLIC_DIR));
  // The merchant's colour for the pages' brand bar (/brand/<rrggbb>.css): pages run no inline style.
  app.use(brandStylesheets());
  // Each acquirer's own routes (payments/registry.ts): its notifications, under its own signatures and answers.
  mountAcquirers(app, deps);
  app.use(apis.v2.router, apis.v1.router, apis.pages.router, ...webConsole.routers);
  // A browser that follows a link to nowhere (`/pay/`, a mistyped path) gets the hosted pages'
  // refusal page in its language; API paths and API clients keep the JSON error.
  finishHttpApp(app, envelopeFor, [], (err, req) => errorPage(err, req.method, requestLanguage(req).language));
  return { app, apis };
}
