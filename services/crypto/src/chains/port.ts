import type { Static, TObject, TProperties } from '@sinclair/typebox';
import type { Clock, Logger } from '@pay/runtime';
import type { Currency, Network, Prisma } from '../generated/prisma/client';
import type { Money } from '../shared/money';
import type { CryptoDb, CryptoTx } from '../db';

/** What the chain says about a transfer, incoming or outgoing. */
export type TransferState =
  | { state: 'pending'; confirmations: number; blockNumber: number | null }
  | { state: 'confirmed'; confirmations: number; blockNumber: number }
  | { state: 'failed'; reason: string; blockNumber: number | null };

export interface TransferRef {
  network: Network;
  /** The token moved: a real chain reads the transfer from that token's contract. */
  currency: Currency;
  txHash: string;
  fromAddress: string;
  toAddress: string;
  /** The amount recorded, as a decimal string: a real chain checks the transfer still moves it. */
  amount: string;
  /** When the transfer was first seen. */
  seenAt: Date;
  requiredConfirmations: number;
  /**
   * What live deposits to `toAddress` in `currency`, confirmed in blocks up to `block`, have
   * credited, this transfer aside: the transactions module's answer (it recorded them), handed
   * in with the ref so that a chain checking a deposit against the address's balance need not
   * read that module's table.
   */
  creditedBefore(block: number): Promise<Money>;
}

/** The address a new invoice is paid to; `index` is its BIP-32 index where keys stand behind it. */
export interface DepositAddress {
  address: string;
  index: number | null;
}

/** An incoming token transfer a watcher found on chain, in ledger units. */
export interface FoundTransfer {
  network: Network;
  /** The token whose contract logged it: it pays only an invoice in this currency. */
  currency: Currency;
  txHash: string;
  fromAddress: string;
  toAddress: string;
  amount: Money;
  blockNumber: number;
}

/**
 * A token as a wallet names it in a payment request (EIP-681): its contract on the chain of
 * `chainId`, and the decimals its amounts are counted in.
 */
export interface PaymentToken {
  chainId: number;
  contract: string;
  decimals: number;
}

/** Records found transfers that pay an invoice (the rest are not ours); already recorded ones are skipped. */
export type RecordTransfers = (found: FoundTransfer[]) => Promise<void>;

/** What is on chain of one token at the head, for the solvency check; amounts in ledger units. */
export interface TokenHoldings {
  network: Network;
  currency: Currency;
  /** Each hot wallet registered on the network, with its token balance. */
  hotWallets: { address: string; tokens: Money }[];
  /** The deposit addresses asked about that hold the token, with their balances. */
  deposits: { address: string; tokens: Money }[];
  /**
   * Other addresses the operator's sweeps sent the token to (a cold wallet named with --to),
   * with their balances: swept funds are still the platform's. Empty when every sweep went to
   * a hot wallet.
   */
  sweptTo: { address: string; tokens: Money }[];
  /** The hot wallets' native coin (ETH, BNB), and what one payout costs at today's fees. */
  gas: { symbol: string; balance: Money; perPayout: Money };
}

/** A live chain's balances, as the solvency check reads them. */
export interface ChainHoldings {
  /** The tokens this connection carries, one per network and currency. */
  tokens(): { network: Network; currency: Currency }[];
  /** Whether this replica runs the network's periodic jobs now (one replica of all does). */
  leads(network: Network): Promise<boolean>;
  /** The balances of the hot wallets and of `depositAddresses`, read at the head. */
  holdings(network: Network, currency: Currency, depositAddresses: string[]): Promise<TokenHoldings>;
}

/** Gives invoices their addresses and follows incoming transfers to them. */
export interface ChainWatcher {
  /** The currencies this connection can take and pay out. */
  readonly currencies: readonly Currency[];
  depositAddress(network: Network): Promise<DepositAddress>;
  /**
   * The token a payer sends for `currency`, as this connection is configured (its contract,
   * chain id and decimals), or null where there is no real token to name: the sandbox.
   */
  paymentToken(currency: Currency): PaymentToken | null;
  /** Its balances for the solvency check; absent on the sandbox (no real funds). */
  readonly holdings?: ChainHoldings;
  /**
   * One pass over what the chain has that is new: incoming transfers are found and handed to
   * `record`. A live chain discovers them itself; the sandbox has no chain to search and is
   * told of each transfer instead (POST /api/v1/sandbox/transactions), so its pass finds none.
   */
  discover(record: RecordTransfers): Promise<void>;
  transferState(ref: TransferRef): Promise<TransferState>;
}

export interface PayoutRequest {
  /** The withdrawal id: a signer must send at most one transfer per id, however often asked. */
  payoutId: string;
  network: Network;
  /** The token to send. */
  currency: Currency;
  toAddress: string;
  /** Net amount, as a decimal string. */
  amount: string;
}

/**
 * Sends signed bytes to the network. Called only once the step's transaction has committed
 * what was signed: a crash before leaves nothing sent, a crash after leaves the bytes to send again.
 */
export type Broadcast = () => Promise<void>;

export type PayoutSent = { state: 'sent'; txHash: string; fromAddress: string; broadcast?: Broadcast } | { state: 'refused'; reason: string };

export interface PayoutRef {
  payoutId: string;
  network: Network;
  /** The hash the withdrawal shows (the first sent; a replacement may be the one mined). */
  txHash: string;
  toAddress: string;
  sentAt: Date;
  requiredConfirmations: number;
}

/** What the chain says about a payout; `txHash` is the transaction that carries it, when it changed. */
export type PayoutState = TransferState & {
  txHash?: string;
  /** Pending: why the payout waits rather than being replaced (the fee ceiling, the hot wallet short of gas or tokens); null when it does not. */
  held?: string | null;
  broadcast?: Broadcast;
};

/**
 * The transaction of one withdrawal step, holding the withdrawal's lock: a signer writes what
 * it signs through it, so the signing, the withdrawal's move and any failure commit together.
 */
export type PayoutTx = CryptoTx;

/** Signs and sends outgoing transfers (withdrawals), then reports on them. */
export interface PayoutSigner {
  /** Why a payout on `network` cannot be sent by this deployment (no signing key), or null. */
  payoutProblem(network: Network): Promise<string | null>;
  /** Sent, or refused for a reason the merchant can read (the hot wallet is short of funds…). */
  send(req: PayoutRequest, tx: PayoutTx): Promise<PayoutSent>;
  /** Confirmed or failed only when final at the required depth; a stuck payout may be replaced (written through `tx`). */
  payoutState(ref: PayoutRef, tx: PayoutTx): Promise<PayoutState>;
}

/** A chain connection: follows deposits and sends payouts. */
export type Chain = ChainWatcher & PayoutSigner;

/** A live chain connection: what the registry keeps for the networks it carries, closed at shutdown. */
export interface LiveChain extends Chain {
  close(): Promise<void>;
}

/** What a live chain may read of the service's own settings, beside its own (LiveChainModule.settings). */
export interface ChainServiceConfig {
  CONFIRMATIONS_TRON: number;
  CONFIRMATIONS_ETHEREUM: number;
  CONFIRMATIONS_BSC: number;
  /** The hot wallet's key file; set only on the workers-only process (config.ts refuses it elsewhere). */
  PAYOUT_PRIVATE_KEY_FILE?: string;
  /** Whether this process runs withdrawal processing: only then does a chain read a payout key. */
  RUN_WORKERS: boolean;
}

/** What a live chain is connected with. */
export interface LiveChainContext {
  db: CryptoDb;
  clock: Clock;
  logger: Logger;
}

/**
 * One live chain implementation, as chains/registry.ts lists it: a new chain is a folder
 * beside chains/evm/ exporting one of these, and one line in the registry.
 */
export interface LiveChainModule<S extends TProperties = TProperties> {
  /** Its name in logs and errors. */
  name: string;
  /** Its settings (environment variables), merged into the service's configuration by config.ts. */
  settings: S;
  /**
   * The chain these settings configure, or null where they configure none (no RPC URL set). It
   * loads its libraries only then, so a sandbox-only process never loads them.
   */
  connect(config: Static<TObject<S>> & ChainServiceConfig, ctx: LiveChainContext): Promise<LiveChain | null>;
}
