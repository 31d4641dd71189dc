import type { Express } from 'express';
import { merchantGuards } from '@pay/accounts';
import { postgresReady } from '@pay/db';
import { Api, buildOpenApi, createHttpApp, docsRoutes, finishHttpApp, PgIdempotencyStore } from '@pay/http';
import { redisReady } from '@pay/runtime';
import type { CryptoDeps } from './deps';
import { merchantRoutes } from './modules/merchants/routes';
import { apiKeyRoutes } from './modules/api-keys/routes';
import { invoiceRoutes } from './modules/invoices/routes';
import { cryptoErrorPage, paymentPage } from './channels/pay-page/page';
import { transactionRoutes } from './modules/transactions/routes';
import { cryptoEvents } from './event-catalogue';
import { withdrawalRoutes } from './modules/withdrawals/routes';


export function buildCryptoApp(deps: CryptoDeps): { app: Express; api: Api } {
  const guards = merchantGuards({
    service: 'crypto',
    signing: 'crypto',
    resolver: deps.keys.resolver,
    redis: deps.redis,
    logger: deps.logger,
    clock: deps.clock,
    limits: { perKeyPerSecond: deps.config.RATE_LIMIT_PER_SECOND, anonymousPerMinute: deps.config.RATE_LIMIT_ANONYMOUS_PER_MINUTE, pagesPerMinute: deps.config.RATE_LIMIT_PAGES_PER_MINUTE },
    // The invoicing console reads balances, transactions and withdrawals here with the
    // merchant's console session (read-only; docs/architecture.md "The console").
    consoleSessions: deps.db,
  });
  const api = new Api({
    envelope: 'success',
    auth: guards,
    idempotency: new PgIdempotencyStore(deps.db, deps.secrets, 'crypto'),
    validateResponses: deps.config.NODE_ENV !== 'production',
  });
  merchantRoutes(api, deps);
  apiKeyRoutes(api, deps);
  invoiceRoutes(api, deps);
  transactionRoutes(api, deps);
  withdrawalRoutes(api, deps);

  const app = createHttpApp({
    service: 'crypto',
    logger: deps.logger,
    bodyLimit: deps.config.BODY_LIMIT,
    isShuttingDown: deps.isShuttingDown,
    envelopeFor: () => 'success',
    metricsToken: deps.config.METRICS_TOKEN,
    trustProxy: deps.config.TRUST_PROXY,
    readiness: [
      { name: 'postgres', check: () => postgresReady(deps.db.$kysely) },
      { name: 'redis', check: () => redisReady(deps.redis) },
    ],
  });
  // A workers-only process (SERVE_API=false, the one that holds the hot wallet's key) answers
  // its probes and metrics and nothing a merchant could call.
  if (deps.config.SERVE_API) {
    app.use(
      docsRoutes('Crypto merchant API', () =>
        buildOpenApi(
          {
            title: 'Crypto merchant API',
            version: '1.0.0',
            description: 'Merchant registration, API keys, crypto invoices, balances, withdrawals and on-chain transactions.',
            serverUrl: deps.config.PUBLIC_URL,
            signing: { style: 'crypto', example: { method: 'POST', path: '/api/v1/withdrawals', body: '{"toAddress":"TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7","amount":10,"currency":"USDT_TRC20"}' } },
          },
          api.operations,
          cryptoEvents.webhookDocs(),
        ),
      ),
    );
    app.use(paymentPage(deps, guards.page));
    app.use(api.router);
  }
  finishHttpApp(app, () => 'success', [], cryptoErrorPage);
  return { app, api };
}
