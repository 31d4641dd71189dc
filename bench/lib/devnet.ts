import { forgetDevnet } from '@pay/crypto/test';
import { startDevnet, type Devnet } from '../../services/crypto/src/chains/evm/devnet';
import { createCryptoDatabase } from '../../services/crypto/src/db';
import type { BenchConfig } from './config';

/**
 * A local devnet for a suite, standing for Ethereum (the suites give its URL as
 * EVM_RPC_URL_ETHEREUM). Each one is a new chain, while the bench's database lives for the
 * whole run: what the crypto service remembers of an earlier suite's devnet (the watcher's
 * cursor and block hashes, hot wallets and signed payouts, sweeps) is forgotten first, as
 * `scripts/devnet.ts start` does. Otherwise the watcher stops, rightly, at "none of the last
 * block hashes kept matches the chain; is it the same chain?" and pays no invoice: the chain
 * suite left its cursor there, and the payouts suite's funding invoice was never Paid.
 */
export async function startBenchDevnet(config: BenchConfig): Promise<Devnet> {
  const { db, close } = createCryptoDatabase(config.databaseUrl, 1);
  try {
    await db.$transaction((tx) => forgetDevnet(tx, 'Ethereum'));
  } finally {
    await close();
  }
  return startDevnet();
}
