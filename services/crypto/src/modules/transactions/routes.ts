import { ApiError, DataBody, PagedData } from '@pay/schemas';
import { type Api, pageOf } from '@pay/http';
import type { CryptoDeps } from '../../deps';
import { getTransaction, listTransactions, recordDetectedTransfer } from './transfers';
import { parseAmount } from '../../shared/money';
import { transactionDetailJson, transactionJson } from './views';
import { ListTransactionsQuery, SandboxTransferBody, TransactionDetail, TransactionItem, TransactionParams } from './schemas';
import { ownerOf } from '@pay/auth';

const tags = ['Transactions'];

export function transactionRoutes(api: Api, deps: CryptoDeps): void {
  api.route({
    method: 'get',
    path: '/api/v1/transactions',
    operationId: 'listTransactions',
    summary: 'List incoming transactions',
    description: 'Newest first; `invoiceId` narrows to one invoice.',
    tags,
    auth: 'key',
    query: ListTransactionsQuery,
    response: { status: 200, schema: DataBody(PagedData(TransactionItem)) },
    handler: async ({ auth, query }) => {
      const { items, totalCount } = await listTransactions(deps, ownerOf(auth), query);
      return { body: { data: pageOf(items.map(transactionJson), totalCount, query) } };
    },
  });

  api.route({
    method: 'get',
    path: '/api/v1/transactions/:transactionId',
    operationId: 'getTransaction',
    summary: 'Get an incoming transaction',
    tags,
    auth: 'key',
    params: TransactionParams,
    response: { status: 200, schema: DataBody(TransactionDetail) },
    errors: ['NOT_FOUND'],
    handler: async ({ auth, params }) => {
      return { body: { data: transactionDetailJson(await getTransaction(deps, ownerOf(auth), params.transactionId)) } };
    },
  });

  api.route({
    method: 'post',
    path: '/api/v1/sandbox/transactions',
    operationId: 'sandboxCreateTransaction',
    summary: 'Simulate an incoming transfer (test mode)',
    description:
      'Test keys only. Records a transfer to the invoice’s deposit address as `Pending`; confirmations then advance on their own ' +
      'until the network’s requirement (Tron 19, Ethereum 12, BSC 15 by default) and the transfer is `Confirmed`. ' +
      'A transfer from the network’s zero address fails on chain instead.',
    tags: ['Sandbox'],
    auth: 'key',
    idempotent: true,
    body: SandboxTransferBody,
    response: { status: 201, schema: DataBody(TransactionDetail) },
    errors: ['FORBIDDEN', 'NOT_FOUND', 'INVALID_ADDRESS', 'CONFLICT'],
    handler: async ({ auth, body }) => {
      if (!auth.isTestMode) throw new ApiError('FORBIDDEN', 'Sandbox endpoints accept test keys (sk_test_…) only');
      const t = await recordDetectedTransfer(deps, { merchantId: auth.merchantId, isTest: true }, { ...body, amount: parseAmount(body.amount) });
      return { status: 201, body: { data: transactionDetailJson(t) } };
    },
  });
}
