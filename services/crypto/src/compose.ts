import type { Express } from 'express';
import { SecretBox } from '@pay/auth';
import { accountKeys, accountsKeyResolver } from '@pay/accounts';
import { type Api } from '@pay/http';
import { closeRedis, queueRedis, requestRedis, type Clock, type Lifecycle, type Logger } from '@pay/runtime';
import type { CryptoConfig } from './config';
import type { CryptoDeps } from './deps';
import { createCryptoDatabase } from './db';
import { buildCryptoApp } from './app';
import { startBackground } from './background';
import type { LiveChain, LiveChainContext } from './chains/port';
import { connectLiveChains, liveChainMap } from './chains/registry';
import { SandboxChain } from './chains/sandbox/sandbox';
import { stablecoinRates } from './shared/rates';

export interface ComposeOptions {
  config: CryptoConfig;
  logger: Logger;
  clock: Clock;
  /** Connections of the process's one pool (DATABASE_POOL_MAX): crypto's tables and accounts' run on the same client. */
  poolSize: number;
  isShuttingDown: () => boolean;
  /**
   * Connects the live chains. By default every registered chain the configuration enables
   * (chains/registry.ts); a test may connect its own.
   */
  connectLive?: (ctx: LiveChainContext) => Promise<LiveChain[]>;
}

export type CryptoBackground = ReturnType<typeof startBackground>;

export interface CryptoService {
  deps: CryptoDeps;
  app: Express;
  api: Api;
  /** The live chains connected (none in a sandbox-only deployment). */
  live: LiveChain[];
  /** Starts the work outside requests (background.ts) and lets commits wake its outbox relay. */
  startBackground(lifecycle?: Lifecycle): CryptoBackground;
  /** What to close after the background stops, in order: the chains, Postgres, Redis. */
  closers: { name: string; close: () => Promise<unknown> }[];
  /** Stops the background (if started) and closes everything, in that order. */
  close(): Promise<void>;
}

/**
 * The crypto service's composition root: the one place its parts are built and wired together
 * (databases, Redis, API keys, chains, the deps every module takes, the app, the background).
 * main.ts runs it as a process; test/test-support.ts builds the same service for tests.
 */
export async function composeCrypto(opts: ComposeOptions): Promise<CryptoService> {
  const { config, logger, clock } = opts;
  const { db, close: closeDb } = createCryptoDatabase(config.DATABASE_URL, opts.poolSize, config.DATABASE_POOLING);
  const redis = requestRedis(config, logger);
  const queues = queueRedis(config, logger);
  const secrets = SecretBox.fromEnv(config.SECRETS_KEY);
  const live = await (opts.connectLive ?? ((ctx) => connectLiveChains(config, ctx)))({ db, clock, logger });
  const keys = accountKeys({ resolver: accountsKeyResolver(db, secrets), redis, logger });
  let kick: () => void = () => undefined;
  const deps: CryptoDeps = {
    config,
    logger,
    db,
    redis,
    queueRedis: queues,
    keys,
    secrets,
    clock,
    // Test mode runs on the sandbox chain; live mode on the networks configured (or none).
    chains: { test: new SandboxChain(clock, config.SANDBOX_BLOCK_MS), live: liveChainMap(...live) },
    rates: stablecoinRates,
    kickOutbox: () => kick(),
    isShuttingDown: opts.isShuttingDown,
  };
  const { app, api } = buildCryptoApp(deps);
  let background: CryptoBackground | null = null;
  const closers = [
    { name: 'chain', close: () => Promise.all(live.map((c) => c.close())) },
    { name: 'postgres', close: () => closeDb() },
    { name: 'redis', close: () => Promise.all([keys.close(), closeRedis(redis), closeRedis(queues)]) },
  ];
  return {
    deps,
    app,
    api,
    live,
    startBackground(lifecycle) {
      const started = startBackground(deps, lifecycle);
      background = started;
      kick = () => void started.relay.kick();
      return started;
    },
    closers,
    async close() {
      await background?.stop();
      for (const c of closers) await c.close();
    },
  };
}
