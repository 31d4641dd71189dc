import type { LiveChainModule } from '../port';
import { readPayoutKeyFile } from './payout-key';
import { evmSettings } from './settings';

/**
 * Ethereum and BSC tokens (any ERC-20), live where EVM_RPC_URL_ETHEREUM or EVM_RPC_URL_BSC is
 * set. viem and its curves are loaded only then (live-chain.ts), never by a sandbox-only process.
 */
export const evmChain: LiveChainModule<typeof evmSettings> = {
  name: 'evm',
  settings: evmSettings,
  async connect(config, { db, clock, logger }) {
    if (!config.EVM_RPC_URL_ETHEREUM && !config.EVM_RPC_URL_BSC) return null;
    // The hot wallet's key is read from its file, only by the workers-only process
    // (loadCryptoConfig refuses PAYOUT_PRIVATE_KEY_FILE on a process that serves the API).
    const keyFile = config.PAYOUT_PRIVATE_KEY_FILE;
    const payoutKey = keyFile ? readPayoutKeyFile(keyFile) : null;
    if (keyFile && !payoutKey) logger.warn({ file: keyFile }, "PAYOUT_PRIVATE_KEY_FILE does not exist: live withdrawals are refused until the hot wallet's key is there and the process restarts");
    const { connectLiveChain } = await import('./live-chain');
    return connectLiveChain(config, db, clock, logger, { runsPayouts: config.RUN_WORKERS, payoutKey: payoutKey ?? undefined });
  },
};
