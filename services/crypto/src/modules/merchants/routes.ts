import { ApiError, DataBody } from '@pay/schemas';
import { Type } from '@sinclair/typebox';
import { outboundUrlProblem, type Api } from '@pay/http';
import { assertLiveKey } from '@pay/auth';
import { getMerchant, registerMerchant, setWebhookUrl } from '@pay/accounts';
import type { CryptoDeps } from '../../deps';
import { toJsonNumber } from '../../shared/money';
import { Profile, RegisterBody, Registration, Stats, WebhookBody } from './schemas';
import { merchantStats } from './stats';

const tags = ['Merchants'];

/** Webhooks must not reach our own network unless the operator allows it. */
function assertWebhookUrl(deps: CryptoDeps, url: string, field = 'webhookUrl'): void {
  const problem = outboundUrlProblem(url, { allowPrivate: deps.config.ALLOW_PRIVATE_WEBHOOK_URLS });
  if (problem) throw new ApiError('VALIDATION_ERROR', `${field} ${problem}`, [{ field, message: problem }]);
}

export function merchantRoutes(api: Api, deps: CryptoDeps): void {
  api.route({
    method: 'post',
    path: '/api/v1/merchants/register',
    operationId: 'registerMerchant',
    summary: 'Register a merchant',
    description:
      'Creates the merchant with a live API key and an HMAC signing secret. Both are returned only in this response. ' +
      'The key and secret work on the crypto and the invoicing base URLs.',
    tags,
    auth: 'none',
    idempotent: true,
    body: RegisterBody,
    response: { status: 201, schema: DataBody(Registration, { message: true }) },
    errors: ['EMAIL_ALREADY_REGISTERED'],
    handler: async ({ body }) => {
      if (body.webhookUrl) assertWebhookUrl(deps, body.webhookUrl);
      const r = await registerMerchant(deps.db, deps.secrets, body);
      return {
        status: 201,
        body: {
          data: {
            merchantId: r.merchant.id,
            companyName: r.merchant.companyName,
            email: r.merchant.email,
            status: r.merchant.status,
            apiKey: {
              id: r.apiKey.id,
              apiKey: r.apiKeyValue,
              hmacSecret: r.hmacSecret,
              name: r.apiKey.name,
              createdAt: r.apiKey.createdAt.toISOString(),
            },
            createdAt: r.merchant.createdAt.toISOString(),
          },
          message: 'Merchant registered. Store the API key and HMAC secret now: they are not shown again.',
        },
      };
    },
  });

  api.route({
    method: 'get',
    path: '/api/v1/merchants/profile',
    operationId: 'getMerchantProfile',
    summary: 'Merchant profile',
    tags,
    auth: 'key',
    response: { status: 200, schema: DataBody(Profile) },
    handler: async ({ auth }) => {
      const m = await getMerchant(deps.db, auth.merchantId);
      return {
        body: {
          data: {
            id: m.id,
            companyName: m.companyName,
            email: m.email,
            address: m.address,
            city: m.city,
            country: m.country,
            webhookUrl: m.webhookUrl,
            testWebhookUrl: m.testWebhookUrl,
            status: m.status,
            feePercent: toJsonNumber(m.feePercent),
            isTestMode: auth.isTestMode,
            createdAt: m.createdAt.toISOString(),
          },
        },
      };
    },
  });

  api.route({
    method: 'get',
    path: '/api/v1/merchants/stats',
    operationId: 'getMerchantStats',
    summary: 'Merchant statistics',
    description: 'Counts and sums over the invoices and ledger of the calling key’s mode (live or test).',
    tags,
    auth: 'key',
    response: { status: 200, schema: DataBody(Stats) },
    handler: async ({ auth }) => ({ body: { data: await merchantStats(deps, auth) } }),
  });

  api.route({
    method: 'put',
    path: '/api/v1/merchants/webhook',
    operationId: 'setMerchantWebhook',
    summary: 'Set the webhook URL',
    description:
      'Crypto events (transaction.confirmed, invoice.paid, withdrawal.completed, withdrawal.failed) are sent to `webhookUrl`, ' +
      'live and test mode alike, unless `testWebhookUrl` is set: then test-mode events go there instead, and `webhookUrl` ' +
      'takes live events only. Every event says `livemode`. `testWebhookUrl` absent leaves it as it is; null clears it. Live keys only.',
    tags,
    auth: 'signed',
    body: WebhookBody,
    response: { status: 200, schema: Type.Object({ message: Type.String() }) },
    errors: ['FORBIDDEN'],
    handler: async ({ auth, body }) => {
      assertLiveKey(auth, 'change the webhook URL, which live events use');
      assertWebhookUrl(deps, body.webhookUrl);
      if (body.testWebhookUrl) assertWebhookUrl(deps, body.testWebhookUrl, 'testWebhookUrl');
      const m = await setWebhookUrl(deps.db, auth.merchantId, body.webhookUrl, body.testWebhookUrl);
      const test = m.testWebhookUrl ? `; test-mode events go to ${m.testWebhookUrl}` : '';
      return { body: { message: `Webhook URL updated to ${body.webhookUrl}${test}` } };
    },
  });
}
