import type { AccountKeys } from '@pay/accounts';
import type { SecretBox } from '@pay/auth';
import type { Clock, Logger, RedisClient } from '@pay/runtime';
import type { CryptoConfig } from './config';
import type { CryptoDb } from './db';
import type { Chains } from './chains/registry';
import type { UsdRates } from './shared/rates';

/** Everything the crypto service's domains need, built once in main.ts (or by a test). */
export interface CryptoDeps {
  config: CryptoConfig;
  logger: Logger;
  /** The service's client: `db.$kysely` for statements outside a transaction, `db.$transaction` to open one. */
  db: CryptoDb;
  /** API key resolution (cached per process, invalidated across processes) and change announcements. */
  keys: AccountKeys;
  /** Request path: rate limits, replay guard, readiness. Fails fast when Redis is away. */
  redis: RedisClient;
  /** BullMQ queues and workers: waits out Redis outages. */
  queueRedis: RedisClient;
  secrets: SecretBox;
  clock: Clock;
  chains: Chains;
  rates: UsdRates;
  /** Wakes the outbox relay after a commit that wrote to the outbox. */
  kickOutbox: () => void;
  isShuttingDown: () => boolean;
}
