import { DataBody, PagedData } from '@pay/schemas';
import { type Api, pageOf } from '@pay/http';
import type { CryptoDeps } from '../../deps';
import { CURRENCIES } from '../../shared/currencies';
import { balances } from '../ledger/ledger';
import { Money, toJsonNumber } from '../../shared/money';
import { createWithdrawal, getWithdrawal, listWithdrawals } from './service';
import { createdWithdrawalJson, withdrawalJson, withdrawalListItemJson } from './views';
import { ownerOf } from '@pay/auth';
import {
  BalanceData,
  CreatedWithdrawal,
  CreateWithdrawalBody,
  ListWithdrawalsQuery,
  WithdrawalDetail,
  WithdrawalListItem,
  WithdrawalParams,
} from './schemas';

const tags = ['Withdrawals'];

export function withdrawalRoutes(api: Api, deps: CryptoDeps): void {
  api.route({
    method: 'get',
    path: '/api/v1/withdrawals/balance',
    operationId: 'getBalance',
    summary: 'Balances per currency and network',
    description:
      '`available` can be withdrawn; `pending` is incoming transfers awaiting confirmations (net of fees); `total` is both. ' +
      'Derived from the ledger. `totalUsdValue` values each stablecoin at 1 USD.',
    tags,
    auth: 'key',
    response: { status: 200, schema: DataBody(BalanceData) },
    handler: async ({ auth }) => {
      const rows = await balances(deps.db, ownerOf(auth));
      let usd = new Money(0);
      const entries = rows.map((b) => {
        const info = CURRENCIES.find((c) => c.code === b.currency)!;
        const total = b.available.add(b.pending);
        usd = usd.add(total.mul(deps.rates.usdRate(b.currency)));
        return {
          currency: b.currency,
          currencyName: info.currencyName,
          network: info.network,
          networkName: info.networkName,
          available: toJsonNumber(b.available),
          pending: toJsonNumber(b.pending),
          total: toJsonNumber(total),
        };
      });
      return { body: { data: { balances: entries, totalUsdValue: toJsonNumber(usd) } } };
    },
  });

  api.route({
    method: 'post',
    path: '/api/v1/withdrawals',
    operationId: 'createWithdrawal',
    summary: 'Withdraw to an external wallet',
    description:
      'The fee is 1% of `amount`, rounded half-up to 6 places; `netAmount = amount - fee` is sent. The amount is held from ' +
      '`available` at once and returned if the withdrawal fails. Minimum (VALIDATION_ERROR below it, the minimum in the message): live 100 on Ethereum ' +
      'and 10 on BSC, so the fee pays the gas; test mode 1. At most 10,000 per currency in any 24 hours, and 100 withdrawals an hour ' +
      '(WITHDRAWAL_LIMIT_EXCEEDED; all configurable). A platform address (any deposit address or hot wallet) is refused (INVALID_ADDRESS). ' +
      'Sandbox: a withdrawal to the network’s zero address is sent but fails on chain.',
    tags,
    auth: 'signed',
    idempotent: true,
    body: CreateWithdrawalBody,
    response: { status: 201, schema: DataBody(CreatedWithdrawal, { message: true }) },
    errors: ['INVALID_ADDRESS', 'INSUFFICIENT_BALANCE', 'WITHDRAWAL_LIMIT_EXCEEDED', 'CURRENCY_NOT_ENABLED'],
    handler: async ({ auth, body, req }) => {
      // Kept on the withdrawal too: the stored answer of Idempotency-Key lives apart from it
      // and a crash between the two must not let a retry withdraw twice.
      const w = await createWithdrawal(deps, ownerOf(auth), body, { idempotencyKey: req.header('idempotency-key') });
      return {
        status: 201,
        body: { data: createdWithdrawalJson(w), message: `Withdrawal ${w.withdrawalNumber} created and queued for processing` },
      };
    },
  });

  api.route({
    method: 'get',
    path: '/api/v1/withdrawals/:withdrawalId',
    operationId: 'getWithdrawal',
    summary: 'Get a withdrawal',
    tags,
    auth: 'key',
    params: WithdrawalParams,
    response: { status: 200, schema: DataBody(WithdrawalDetail) },
    errors: ['NOT_FOUND'],
    handler: async ({ auth, params }) => ({ body: { data: withdrawalJson(await getWithdrawal(deps, ownerOf(auth), params.withdrawalId)) } }),
  });

  api.route({
    method: 'get',
    path: '/api/v1/withdrawals',
    operationId: 'listWithdrawals',
    summary: 'List withdrawals',
    description: 'Newest first; `status` filters.',
    tags,
    auth: 'key',
    query: ListWithdrawalsQuery,
    response: { status: 200, schema: DataBody(PagedData(WithdrawalListItem)) },
    handler: async ({ auth, query }) => {
      const { items, totalCount } = await listWithdrawals(deps, ownerOf(auth), query);
      return { body: { data: pageOf(items.map(withdrawalListItemJson), totalCount, query) } };
    },
  });
}
