import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { parseGwei } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { Clock, Logger } from '@pay/runtime';
import type { EvmConfig } from './settings';
import type { CryptoDb } from '../../db';
import type { Currency, Network } from '../../generated/prisma/client';
import type { LiveChain, ChainHoldings, DepositAddress, PaymentToken, PayoutRef, PayoutRequest, PayoutSent, PayoutState, PayoutTx, RecordTransfers, TransferRef, TransferState } from '../port';
import { connectEvmNetworks, EVM_NETWORKS, tokenOf, type EvmNetwork } from './config';
import { DepositAddresses } from './deposit-addresses';
import { depositState } from './deposits';
import { parsePayoutKey } from './payout-key';
import { EvmPayoutSigner, hasPayoutWallet, hasSignedPayout, payoutWallets } from './payout-signer';
import { evmHoldings } from './holdings';
import { sweepDestinations, sweptOutBy } from './sweeps';
import { EvmWatcher } from './watcher';

export interface LiveChainOptions {
  /** Whether this process runs withdrawal processing (RUN_WORKERS): only then is a payout key read. */
  runsPayouts: boolean;
  /** The hot wallet's key (main.ts reads it from PAYOUT_PRIVATE_KEY_FILE), given only to the workers-only process. */
  payoutKey?: string;
}

/**
 * Live tokens (USDT, USDC: any ERC-20) on the EVM networks whose RPC URLs are configured, one
 * implementation for Ethereum and BSC. Deposit addresses come from DEPOSIT_XPUB, incoming transfers are
 * discovered by a watcher per network (one replica leads each), and payouts are signed by
 * the hot wallet where this process holds its key.
 */
export class EvmChain implements LiveChain {
  readonly currencies: readonly Currency[];
  readonly watchers: EvmWatcher[];
  private readonly networks: Map<Network, EvmNetwork>;

  constructor(
    private readonly db: CryptoDb,
    private readonly clock: Clock,
    private readonly config: EvmConfig,
    networks: EvmNetwork[],
    private readonly addresses: DepositAddresses,
    readonly signer: EvmPayoutSigner | null,
    private readonly runsPayouts: boolean,
    private readonly logger: Logger,
  ) {
    this.networks = new Map(networks.map((n) => [n.network, n]));
    this.currencies = networks.flatMap((n) => n.tokens.map((t) => t.currency));
    const holder = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    this.watchers = networks.map(
      (n) =>
        new EvmWatcher(db, n, { maxRange: config.EVM_MAX_BLOCK_RANGE, rescanBlocks: config.EVM_RESCAN_BLOCKS, leaseMs: config.EVM_LEASE_MS, holder }, clock, logger),
    );
  }

  /** The configured token of `currency`: its contract, decimals and chain id, as a payment link names them. */
  paymentToken(currency: Currency): PaymentToken | null {
    for (const net of this.networks.values()) {
      const token = net.tokens.find((t) => t.currency === currency);
      if (token) return { chainId: token.chainId, contract: token.address, decimals: token.decimals };
    }
    return null;
  }

  /** The solvency check's view: the balances of the hot wallets and deposit addresses, asked of the network's first provider. */
  readonly holdings: ChainHoldings = {
    tokens: () => [...this.networks.values()].flatMap((n) => n.tokens.map((t) => ({ network: n.network, currency: t.currency }))),
    // The network's watcher holds the lease: its periodic jobs run in the one replica that leads it.
    leads: (network) => this.watchers.find((w) => w.network === network)?.cursor.leads() ?? Promise.resolve(false),
    holdings: async (network, currency, depositAddresses) => {
      const net = this.network(network);
      const token = tokenOf(net, currency);
      const hot = await payoutWallets(this.db, network);
      return evmHoldings(net, token, hot, depositAddresses, await sweepDestinations(this.db, net, token, hot), this.config.PAYOUT_GAS_LIMIT);
    },
  };

  network(network: Network): EvmNetwork {
    const net = this.networks.get(network);
    if (!net) throw new Error(`no live ${network} connection (set ${EVM_NETWORKS[network as keyof typeof EVM_NETWORKS]?.rpc ?? 'its RPC URL'})`);
    return net;
  }

  async depositAddress(network: Network): Promise<DepositAddress> {
    this.network(network);
    return this.addresses.next(this.db);
  }

  /** Every network followed to its head; one network's failure does not hold back another's. */
  async discover(record: RecordTransfers): Promise<void> {
    const results = await Promise.allSettled(this.watchers.map((w) => w.follow(record)));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  }

  transferState(ref: TransferRef): Promise<TransferState> {
    return depositState(
      this.network(ref.network),
      ref,
      this.clock,
      this.config.EVM_DROPPED_AFTER_MS, (r, block) => r.creditedBefore(block),
      (r, block) => this.sweptOut(r, block),
      this.logger,
    );
  }

  /** What the operator's sweeps moved out of the transfer's address by `block`, confirmed at the transfer's own depth. */
  private sweptOut(ref: TransferRef, block: number): Promise<bigint> {
    const net = this.network(ref.network);
    return sweptOutBy(this.db, this.clock, net, tokenOf(net, ref.currency), ref.toAddress, block, ref.requiredConfirmations, this.logger);
  }

  async payoutProblem(network: Network): Promise<string | null> {
    const missing = `Live withdrawals on ${network} need the hot wallet's key: PAYOUT_PRIVATE_KEY_FILE is not set on the workers-only process (SERVE_API=false) that runs withdrawal processing`;
    if (this.runsPayouts) return this.signer ? null : missing;
    // An API-only process holds no key: a withdrawal worker that holds one has registered its wallet.
    return (await hasPayoutWallet(this.db, network)) ? null : missing;
  }

  async send(req: PayoutRequest, tx: PayoutTx): Promise<PayoutSent> {
    if (!this.signer) {
      // Refusing fails the withdrawal: never one that a process holding the key has signed.
      if (await hasSignedPayout(tx, req.payoutId)) throw new Error(`withdrawal ${req.payoutId} was signed by a hot wallet whose key this process does not hold`);
      return { state: 'refused', reason: (await this.payoutProblem(req.network))! };
    }
    return this.signer.send(req, tx);
  }

  payoutState(ref: PayoutRef, tx: PayoutTx): Promise<PayoutState> {
    if (!this.signer) throw new Error(`withdrawal ${ref.payoutId} was sent by a hot wallet whose key this process does not hold`);
    return this.signer.payoutState(ref, tx);
  }

  /** Gives up the watchers' leases, so another replica takes over at once. */
  async close(): Promise<void> {
    await Promise.all(this.watchers.map((w) => w.cursor.release()));
  }
}

/** The live chain this configuration describes, or null where no EVM network is configured. */
export async function connectLiveChain(config: EvmConfig, db: CryptoDb, clock: Clock, logger: Logger, opts: LiveChainOptions): Promise<EvmChain | null> {
  const networks = await connectEvmNetworks(config);
  if (networks.length === 0) return null;
  const addresses = new DepositAddresses(config.DEPOSIT_XPUB!);
  let signer: EvmPayoutSigner | null = null;
  if (opts.runsPayouts && opts.payoutKey) {
    const account = privateKeyToAccount(parsePayoutKey(opts.payoutKey));
    signer = new EvmPayoutSigner(db, clock, logger, new Map(networks.map((n) => [n.network, n])), account, {
      gasLimit: config.PAYOUT_GAS_LIMIT,
      stuckAfterMs: config.PAYOUT_STUCK_AFTER_MS,
      feeCeiling: new Map([
        ['Ethereum', parseGwei(config.PAYOUT_MAX_FEE_GWEI_ETHEREUM)],
        ['BSC', parseGwei(config.PAYOUT_MAX_FEE_GWEI_BSC)],
      ]),
    });
    await signer.register();
  }
  logger.info(
    {
      networks: networks.map((n) => ({
        network: n.network,
        chainId: n.chainId,
        providers: n.providers.map((p) => p.name),
        tokens: n.tokens.map((t) => ({ currency: t.currency, contract: t.address, decimals: t.decimals })),
      })),
      hotWallet: signer?.account.address ?? null,
    },
    'live chain connected',
  );
  return new EvmChain(db, clock, config, networks, addresses, signer, opts.runsPayouts, logger);
}
