export { createDb, postgresReady, poolUnder, TRANSACTION_OPTIONS, WASM_TIERING_BUDGET, type Db, type DbOptions, type PrismaClientClass, type Queries, type Transactions, type Tx } from './client';
export { tablesOf } from './tables';
export { preparedStatement } from './prepared';
export { isDatabaseUnavailable, isUniqueViolation } from './errors';
export { isTransactionPooled, openPools, pgPool, type DatabasePooling, type PoolCounts } from './pool';
export { PgRows } from './rows';
export type { Kysely } from 'kysely';
