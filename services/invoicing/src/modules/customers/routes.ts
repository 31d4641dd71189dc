import { Type } from '@sinclair/typebox';
import { ownerOf } from '@pay/auth';
import { paginationOf, type Api } from '@pay/http';
import { OffsetPage } from '@pay/schemas';
import type { CustomersDeps } from '../../deps';
import { blockStateJson, customerJson, listCustomers, setBlocked } from './customers';
import { BlockBody, BlockState, CustomerJson, CustomerParams, ListCustomersQuery } from './schemas';

const tags = ['Customers'];

const TRUST =
  'A customer is one payer of the merchant in one mode, identified by e-mail or phone, created or updated when one of their invoices is paid. ' +
  '`trustLevel`: NEW (no payment); LEVEL_1 (1–2 payments); LEVEL_2 (3–5 payments, or KYC verified, or 6+ payments without KYC); ' +
  'LEVEL_3 (6+ payments and KYC verified). `totalPayments` counts paid invoices; `totalAmount` is rubles paid less refunds; ' +
  'a refund changes neither `totalPayments` nor `trustLevel`.';

export function customerRoutes(api: Api, deps: CustomersDeps): void {
  api.route({
    method: 'get',
    path: '/api/v2/customers',
    operationId: 'listCustomers',
    summary: 'List customers',
    description: `Newest first. \`limit\` default 50, at most 100. ${TRUST}`,
    tags,
    auth: 'signed',
    query: ListCustomersQuery,
    response: { status: 200, schema: OffsetPage(CustomerJson) },
    handler: async ({ auth, query }) => {
      const { rows, total } = await listCustomers(deps, ownerOf(auth), query);
      return { body: { data: rows.map(customerJson), pagination: paginationOf(total, query) } };
    },
  });

  api.route({
    method: 'post',
    path: '/api/v2/customers/:customerId/block',
    operationId: 'blockCustomer',
    summary: 'Block a customer',
    description: 'A blocked customer cannot pay the merchant’s invoices (`CUSTOMER_BLOCKED`, on the hosted page and in the sandbox). Blocking again updates the reason.',
    tags,
    auth: 'signed',
    params: CustomerParams,
    body: BlockBody,
    response: { status: 200, schema: Type.Object({ message: Type.String(), customer: BlockState }) },
    errors: ['NOT_FOUND'],
    handler: async ({ auth, params, body }) => {
      const c = await setBlocked(deps, ownerOf(auth), params.customerId, { reason: body.reason ?? null });
      return { body: { message: 'Customer blocked', customer: blockStateJson(c) } };
    },
  });

  api.route({
    method: 'post',
    path: '/api/v2/customers/:customerId/unblock',
    operationId: 'unblockCustomer',
    summary: 'Unblock a customer',
    description: 'Same answer shape as block, with `isBlocked: false` and `blockedAt`, `blockedReason` null.',
    tags,
    auth: 'signed',
    params: CustomerParams,
    response: { status: 200, schema: Type.Object({ message: Type.String(), customer: BlockState }) },
    errors: ['NOT_FOUND'],
    handler: async ({ auth, params }) => {
      const c = await setBlocked(deps, ownerOf(auth), params.customerId, false);
      return { body: { message: 'Customer unblocked', customer: blockStateJson(c) } };
    },
  });
}
