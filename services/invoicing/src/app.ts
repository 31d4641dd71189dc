import type { Express, Request } from 'express';
import type { Redis } from 'ioredis';
import type { AccountsDb } from '@pay/accounts';
import { Api, buildOpenApi, createHttpApp, docsRoutes, finishHttpApp, type Envelope, type Logger, redisReady } from '@pay/kit';
import type { InvoicingConfig } from './config';

export interface InvoicingDeps {
  config: InvoicingConfig;
  logger: Logger;
  accounts: AccountsDb;
  redis: Redis;
  isShuttingDown: () => boolean;
}

/** v1 answers bare objects, v2 the `success` envelope (decisions.md §3). */
export const envelopeFor = (req: Request | string): Envelope =>
  (typeof req === 'string' ? req : req.path).startsWith('/api/v1') ? 'bare' : 'success';

const SIGNING_DOC =
  'v2: x-timestamp = Unix milliseconds; x-signature = lower-case hex HMAC-SHA256(hmacSecret, `${timestamp}.${METHOD}.${path}${rawBody}`), ' +
  'path without query string. Allowed skew 300 s; a signature is accepted once. v1: x-api-key only.';

/** The invoicing features arrive with their issues; the process, health and docs exist now. */
export function buildInvoicingApp(deps: InvoicingDeps): { app: Express; api: Api } {
  const api = new Api({ envelope: 'success', auth: { key: [], signed: [] }, validateResponses: deps.config.NODE_ENV !== 'production' });
  const app = createHttpApp({
    service: 'invoicing',
    logger: deps.logger,
    bodyLimit: deps.config.BODY_LIMIT,
    isShuttingDown: deps.isShuttingDown,
    envelopeFor,
    readiness: [
      { name: 'postgres', check: () => deps.accounts.$queryRaw`SELECT 1` },
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
          signing: SIGNING_DOC,
        },
        api.operations,
      ),
    ),
  );
  app.use(api.router);
  finishHttpApp(app, envelopeFor);
  return { app, api };
}
