import { Type, type Static, type TObject } from '@sinclair/typebox';
import type { ChainServiceConfig } from '../port';

const Count = (def: number, description: string) => Type.Integer({ minimum: 1, maximum: 1000, default: def, description });
const Gwei = (def: string, description: string) => Type.String({ pattern: '^[0-9]+(\\.[0-9]{1,9})?$', default: def, description });
const Millis = (def: number, description: string) => Type.Integer({ minimum: 1, maximum: 3_600_000, default: def, description });

/**
 * The EVM chain's settings (Ethereum and BSC): config.ts merges them into the service's
 * configuration through the registry, so they are read, validated and documented like the rest.
 */
export const evmSettings = {
  EVM_RPC_URL_ETHEREUM: Type.Optional(Type.String({ pattern: '^https?://', description: 'JSON-RPC endpoints of Ethereum, comma-separated (https://, or http:// on loopback): live Ethereum tokens are enabled only when set; with several, a deposit counts only when all agree' })),
  EVM_RPC_URL_BSC: Type.Optional(Type.String({ pattern: '^https?://', description: 'JSON-RPC endpoints of BSC, comma-separated (https://, or http:// on loopback): live BSC tokens are enabled only when set; with several, a deposit counts only when all agree' })),
  USDT_CONTRACT_ETHEREUM: Type.Optional(Type.String({ pattern: '^0x[0-9a-fA-F]{40}$', description: 'USDT token contract on Ethereum: live USDT_ERC20 (its decimals are read from it)' })),
  USDC_CONTRACT_ETHEREUM: Type.Optional(Type.String({ pattern: '^0x[0-9a-fA-F]{40}$', description: 'USDC token contract on Ethereum: live USDC_ERC20 (its decimals are read from it)' })),
  USDT_CONTRACT_BSC: Type.Optional(Type.String({ pattern: '^0x[0-9a-fA-F]{40}$', description: 'USDT token contract on BSC: live USDT_BEP20 (its decimals are read from it)' })),
  USDC_CONTRACT_BSC: Type.Optional(Type.String({ pattern: '^0x[0-9a-fA-F]{40}$', description: 'USDC token contract on BSC: live USDC_BEP20 (its decimals are read from it)' })),
  DEPOSIT_XPUB: Type.Optional(Type.String({ pattern: '^[xt]pub[1-9A-HJ-NP-Za-km-z]{100,112}$', description: 'BIP-32 extended public key: live deposit addresses are xpub/0/index' })),
  EVM_MAX_BLOCK_RANGE: Count(500, 'live watcher: most blocks asked of eth_getLogs at once'),
  EVM_RESCAN_BLOCKS: Count(64, 'live watcher: the newest blocks scanned again on every pass, so one empty or lagging eth_getLogs answer never skips a deposit'),
  EVM_WATCH_INTERVAL_MS: Millis(2000, 'live watcher: how often each network is followed to its head'),
  EVM_LEASE_MS: Millis(15_000, 'live watcher: a leader that has not renewed its lease for this long is replaced by another replica'),
  EVM_DROPPED_AFTER_MS: Millis(3_600_000, 'a detected deposit missing from the chain this long after it was seen (reorganised away, never mined again) fails'),
  PAYOUT_STUCK_AFTER_MS: Millis(600_000, 'a payout not mined this long after it was sent is replaced at the same nonce with a higher fee'),
  PAYOUT_MAX_FEE_GWEI_ETHEREUM: Gwei('3', 'fee ceiling of an Ethereum payout (maxFeePerGas, gwei): a replacement never goes above it; WITHDRAWAL_MINIMUMS are sized for it'),
  PAYOUT_MAX_FEE_GWEI_BSC: Gwei('1', 'fee ceiling of a BSC payout (maxFeePerGas, gwei): a replacement never goes above it; WITHDRAWAL_MINIMUMS are sized for it'),
  PAYOUT_GAS_LIMIT: Type.Integer({ minimum: 21_000, maximum: 10_000_000, default: 100_000, description: 'gas limit of a payout token transfer' }),
};

/** What the EVM chain reads of the configuration: its own settings and the networks' confirmation depths. */
export type EvmConfig = Static<TObject<typeof evmSettings>> & Pick<ChainServiceConfig, 'CONFIRMATIONS_ETHEREUM' | 'CONFIRMATIONS_BSC'>;
