import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { Type } from '@sinclair/typebox';
import { closedWithTheFile, firstConnection } from '@pay/testing';
import { createLogger, systemClock } from '@pay/runtime';
import { registerMerchant } from '../../test/test-support';
import { composeCrypto } from '../compose';
import { CryptoConfigSchema, loadCryptoConfig } from '../config';
import { generateAddress } from './addresses';
import type { LiveChain, LiveChainContext, LiveChainModule } from './port';
import { connectLiveChains, LIVE_CHAINS, requireChain } from './registry';

/**
 * "A new chain is its folder and one line in LIVE_CHAINS": every registered chain's settings
 * are the service's configuration, and a second chain, declared here as its folder would
 * declare it, is connected beside the registered ones, filed under the network of its
 * currencies, and takes that network's live invoices. connectLiveChains takes the list
 * (LIVE_CHAINS by default), so this test adds its chain to the real ones.
 */

const closed: string[] = [];

/** A chain carrying USDT_TRC20 (Tron), live where SECOND_RPC_URL is set. */
const secondSettings = { SECOND_RPC_URL: Type.Optional(Type.String({ pattern: '^https?://' })) };
const second: LiveChainModule<typeof secondSettings> = {
  name: 'second',
  settings: secondSettings,
  async connect(config) {
    if (!config.SECOND_RPC_URL) return null;
    const unused = () => {
      throw new Error('not used here');
    };
    const chain: LiveChain = {
      currencies: ['USDT_TRC20'],
      depositAddress: async (network) => ({ address: generateAddress(network), index: null }),
      paymentToken: () => null,
      discover: async () => undefined,
      transferState: unused,
      payoutProblem: async () => 'no payouts here',
      send: unused,
      payoutState: unused,
      close: async () => void closed.push('second'),
    };
    return chain;
  },
};

/** A chain whose connection fails: what was connected before it is closed again. */
const failing: LiveChainModule = {
  name: 'failing',
  settings: {},
  async connect() {
    throw new Error('the node refused');
  },
};

// No registered chain is enabled here (no EVM_RPC_URL_*): only the second one connects.
const env = { ...process.env, EVM_RPC_URL_ETHEREUM: '', EVM_RPC_URL_BSC: '', QUEUE_PREFIX: `test-${randomUUID()}` };
const config = loadCryptoConfig(env);
const ctx = { clock: systemClock, logger: createLogger('crypto', 'silent') } as LiveChainContext;

it('merges every registered chain’s settings into the service’s configuration', () => {
  expect(LIVE_CHAINS.length).toBeGreaterThan(0);
  for (const chain of LIVE_CHAINS) {
    for (const [name, schema] of Object.entries(chain.settings)) expect({ chain: chain.name, name, schema: CryptoConfigSchema.properties[name as keyof typeof CryptoConfigSchema.properties] }).toEqual({ chain: chain.name, name, schema });
  }
});

it('connects a second chain beside the registered ones, only where its settings enable it, and closes what connected when one fails', async () => {
  expect(await connectLiveChains(config, ctx, [...LIVE_CHAINS, second])).toEqual([]);
  const enabled = { ...config, SECOND_RPC_URL: 'http://127.0.0.1:1' };
  const live = await connectLiveChains(enabled, ctx, [...LIVE_CHAINS, second]);
  expect(live.map((c) => c.currencies)).toEqual([['USDT_TRC20']]);
  // The registered list alone does not know it.
  expect(await connectLiveChains(enabled, ctx)).toEqual([]);
  await expect(connectLiveChains(enabled, ctx, [...LIVE_CHAINS, second, failing])).rejects.toThrow('the node refused');
  expect(closed).toEqual(['second']);
});

it('files the second chain under its network: live invoices there get its addresses, other live currencies are refused', async () => {
  const crypto = await closedWithTheFile(
    composeCrypto({
      config,
      logger: createLogger('crypto', 'silent'),
      clock: systemClock,
      poolSize: 4,
      isShuttingDown: () => false,
      connectLive: (c) => connectLiveChains({ ...config, SECOND_RPC_URL: 'http://127.0.0.1:1' } as typeof config, c, [...LIVE_CHAINS, second]),
    }),
  );
  await firstConnection(crypto.deps.redis);
  expect([...crypto.deps.chains.live.keys()]).toEqual(['Tron']);
  expect(requireChain(crypto.deps.chains, false, 'invoices', 'USDT_TRC20')).toBe(crypto.live[0]);

  const m = await registerMerchant(crypto.app);
  const tron = await request(crypto.app).post('/api/v1/invoices').set('X-Api-Key', m.apiKey).send({ amount: 10, currency: 'USDT_TRC20' });
  expect(tron.status).toBe(201);
  expect(tron.body.data.address).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
  const erc20 = await request(crypto.app).post('/api/v1/invoices').set('X-Api-Key', m.apiKey).send({ amount: 10, currency: 'USDT_ERC20' });
  expect([erc20.status, erc20.body.error?.code]).toEqual([422, 'CURRENCY_NOT_ENABLED']);
  await crypto.close();
});
