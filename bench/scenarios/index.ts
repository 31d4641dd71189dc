import type { AnySuite, MeasuredSuite } from '../lib/types';
import { batchSuite } from './batch';
import { cryptoSuite } from './crypto';
import { invoicingSuite } from './invoicing';
import { webhookSuite } from './webhooks';
import { receiptSuite } from './receipts';
import { memorySuite } from './memory';
import { chainSuite } from './chain';
import { payoutSuite } from './payouts';
import { throughPgBouncer } from './pgbouncer';
import { onRedisCluster } from './redis-cluster';

/** Every suite, in the order the bench runs them. Register a new scenario file here (one line). */
export const suites: AnySuite[] = [
  cryptoSuite,
  invoicingSuite,
  // The creates and the GET again, the service behind PgBouncer in transaction pooling (README "PgBouncer").
  throughPgBouncer(cryptoSuite, 'crypto', ['crypto.get-invoice', 'crypto.create-invoice']),
  throughPgBouncer(invoicingSuite, 'invoicing', ['invoicing.v2-create']),
  // The same GETs and creates with the service on a Redis Cluster of three masters (README "Redis Cluster").
  onRedisCluster(cryptoSuite, ['crypto.get-invoice', 'crypto.create-invoice']),
  onRedisCluster(invoicingSuite, ['invoicing.v2-get', 'invoicing.v2-create']),
];

/** Suites measured otherwise than by HTTP load (deliveries/s, batches, OCR, memory), after the HTTP ones. */
export const measured: MeasuredSuite[] = [
  webhookSuite,
  receiptSuite,
  batchSuite,
  chainSuite,
  payoutSuite,
  memorySuite,
];
