import { tablesOf, type Kysely, type Queries } from '@pay/db';
import type { DB } from './generated/kysely/tables';

/** Postgres schema owned by this package. */
export const ACCOUNTS_SCHEMA = 'accounts';

/**
 * This package's tables on the caller's client or transaction (its `$kysely`: any service's,
 * or the webhook worker's): every table qualified with the `accounts` schema, since the
 * caller's search_path is its own. Only this package's stores (src/store/) name the tables.
 * Tests and the bench without a service's client make one with `createAccountsDb` (testing.ts).
 */
export const accountTables = (on: Queries): Kysely<DB> => tablesOf<DB>(on, ACCOUNTS_SCHEMA);
