import { erc20Abi, getAbiItem, HttpRequestError, TimeoutError, type PublicClient } from 'viem';
import type { Clock, Logger } from '@pay/runtime';
import type { CryptoDb } from '../../db';
import type { FoundTransfer, RecordTransfers } from '../port';
import { fromUnits } from './amounts';
import { tokenAt, type EvmNetwork } from './config';
import { WatchCursor } from './cursor';
import { blocksBehind, logRange, rpcDisagreements } from './metrics';
import { askAll, ProviderError } from './rpc';

const TRANSFER = getAbiItem({ abi: erc20Abi, name: 'Transfer' });

/** The Transfer logs of the watched tokens in a block range, one eth_getLogs. */
function transferLogs(client: PublicClient, tokens: `0x${string}`[], fromBlock: bigint, toBlock: bigint) {
  return client.getLogs({ address: tokens, event: TRANSFER, fromBlock, toBlock });
}
type TransferLog = Awaited<ReturnType<typeof transferLogs>>[number];

/** Answers in a row after which a range halved by a refusal is doubled again (up to the configured most). */
const GROW_AFTER = 20;

export interface WatchOptions {
  /** Most blocks asked of eth_getLogs in one call. */
  maxRange: number;
  /** The newest blocks scanned again on every pass. */
  rescanBlocks: number;
  leaseMs: number;
  /** This replica's name in the lease. */
  holder: string;
}

export interface WatchStep {
  led: boolean;
  /** The blocks scanned this step (inclusive), when there were any. */
  from?: bigint;
  to?: bigint;
  found: number;
  /** Nothing more to scan in this pass: the head is reached, or the providers must agree first. */
  done: boolean;
  /** The block the cursor went back to after a reorganisation. */
  rewoundTo?: bigint;
}

/** A log as every provider must return it to be believed: same transaction, position, block, token, parties and value. */
const identity = (l: TransferLog) => `${l.transactionHash}:${l.logIndex}:${l.blockHash}:${l.address.toLowerCase()}:${l.topics.join(',')}:${l.data}`;

/**
 * Follows one network's tokens from block to block and hands every Transfer it finds to the
 * recorder, which keeps those that pay an invoice. Depth is not decided here: a transfer
 * found at any depth is recorded Pending, and the tracker credits it once its receipt is deep
 * enough in the canonical chain on every provider.
 *
 * Nothing one answer says can lose a deposit:
 * - the cursor (the last block scanned for good, in Postgres) stays `rescanBlocks` behind the
 *   head, so the newest blocks are scanned again on every pass: an empty or lagging
 *   eth_getLogs answer is corrected by the next one;
 * - the cursor moves only after its blocks' transfers are recorded, so a restart scans again
 *   from there (a transfer recorded twice is refused by transaction hash and address);
 * - with several providers, a log is recorded only when every provider returns it (same
 *   transaction, log index and block hash); where they differ the cursor stops before the
 *   first disputed block, and a provider that fails makes the pass wait: none decides alone;
 * - a refused range (hosted providers cap eth_getLogs) is halved and asked again, so catching
 *   up never stalls; after a run of answers it is doubled back.
 */
export class EvmWatcher {
  readonly cursor: WatchCursor;
  /** Blocks asked of eth_getLogs at once now. */
  private range: number;
  private answersInRow = 0;

  constructor(
    db: CryptoDb,
    private readonly net: EvmNetwork,
    private readonly opts: WatchOptions,
    clock: Clock,
    private readonly logger: Logger,
  ) {
    this.cursor = new WatchCursor(db, net.network, opts.holder, opts.leaseMs, clock);
    this.range = opts.maxRange;
    logRange.set({ network: net.network }, this.range);
  }

  get network(): EvmNetwork['network'] {
    return this.net.network;
  }

  /**
   * One bounded step toward the head: at most the current range of blocks, from `from` (the
   * block after the cursor unless a pass in progress says where it stands).
   */
  async step(record: RecordTransfers, from?: bigint): Promise<WatchStep> {
    const { network, providers } = this.net;
    const heads = await askAll(network, providers, 'eth_blockNumber', (c) => c.getBlockNumber());
    // The providers' common head: a block only some of them have is not scanned yet.
    const head = heads.reduce((a, b) => (b < a ? b : a));
    // A first start scans from the deepest block not yet confirmed: older payments to invoices
    // that cannot exist yet need no search.
    const led = await this.cursor.hold(async () => (head >= BigInt(this.net.confirmations) ? head - BigInt(this.net.confirmations) : -1n));
    if (!led) return { led: false, found: 0, done: true };
    let cursor = await this.cursor.position();
    const rewoundTo = await this.rewind(cursor);
    if (rewoundTo !== undefined) {
      cursor = rewoundTo;
      from = undefined; // the new branch is scanned from the cursor
    }
    blocksBehind.set({ network }, Number(head > cursor ? head - cursor : 0n));
    const start = from ?? cursor + 1n;
    if (start > head) return { led: true, found: 0, done: true, rewoundTo };
    const to = head < start + BigInt(this.range) - 1n ? head : start + BigInt(this.range) - 1n;

    const toHash = await this.agreedHash(to);
    if (!toHash) return { led: true, found: 0, done: true, rewoundTo };
    let answers: TransferLog[][];
    try {
      answers = await askAll(network, providers, 'eth_getLogs', (c) => transferLogs(c, this.net.tokens.map((t) => t.address), start, to));
    } catch (err) {
      if (to > start && isRefusal(err)) {
        this.setRange(Math.max(1, Math.floor(Number(to - start + 1n) / 2)));
        this.logger.warn({ network, from: start.toString(), to: to.toString(), range: this.range, err: (err as Error).message }, 'eth_getLogs range refused: asking for half as many blocks');
        return { led: true, found: 0, done: false, from: start, to: start - 1n, rewoundTo };
      }
      throw err;
    }
    this.grow();
    // The logs must come from the branch whose tip we noted: a reorganisation while they were read means read again.
    if ((await this.agreedHash(to)) !== toHash) return { led: true, found: 0, done: true, rewoundTo };

    const { agreed, firstDisputed } = this.agree(answers);
    const found = this.transfersOf(agreed);
    await record(found);

    // The cursor never passes a disputed block, nor enters the window scanned again next pass.
    let next = to;
    if (firstDisputed !== undefined) next = firstDisputed - 1n;
    const windowStart = head - BigInt(this.opts.rescanBlocks);
    if (next > windowStart) next = windowStart;
    if (next > cursor) {
      const nextHash = next === to ? toHash : await this.agreedHash(next);
      if (!nextHash) return { led: true, from: start, to, found: found.length, done: true, rewoundTo };
      const blocks = new Map<bigint, string>([[next, nextHash]]);
      for (const l of agreed) if (l.blockNumber <= next) blocks.set(l.blockNumber, l.blockHash);
      if (!(await this.cursor.advance(next, blocks))) return { led: false, found: found.length, done: true };
      blocksBehind.set({ network }, Number(head - next));
    }
    return { led: true, from: start, to, found: found.length, done: to >= head || firstDisputed !== undefined, rewoundTo };
  }

  /** Steps until the head is reached (or the lease is lost, or the providers must agree first). */
  async follow(record: RecordTransfers): Promise<number> {
    let found = 0;
    let from: bigint | undefined;
    for (;;) {
      const s = await this.step(record, from);
      found += s.found;
      if (!s.led || s.done) return found;
      from = s.to! + 1n;
    }
  }

  /** The hash every provider gives block `n`, or undefined (counted, logged) where they differ. */
  private async agreedHash(n: bigint): Promise<`0x${string}` | undefined> {
    const hashes = await askAll(this.net.network, this.net.providers, 'eth_getBlockByNumber', (c) => c.getBlock({ blockNumber: n }).then((b) => b.hash));
    if (hashes.every((h) => h === hashes[0])) return hashes[0];
    rpcDisagreements.inc({ network: this.net.network, what: 'block hash' });
    this.logger.warn({ network: this.net.network, block: n.toString() }, 'providers disagree on a block hash: waiting for them to agree');
    return undefined;
  }

  /** The logs every provider returned, and the first block holding a log only some returned. */
  private agree(answers: TransferLog[][]): { agreed: TransferLog[]; firstDisputed?: bigint } {
    const [first, ...rest] = answers;
    if (rest.length === 0) return { agreed: first!.filter((l) => !l.removed) };
    const sets = answers.map((a) => new Set(a.filter((l) => !l.removed).map(identity)));
    const agreed: TransferLog[] = [];
    let firstDisputed: bigint | undefined;
    const dispute = (block: bigint) => {
      if (firstDisputed === undefined || block < firstDisputed) firstDisputed = block;
    };
    for (const l of first!) if (!l.removed) (sets.every((s) => s.has(identity(l))) ? agreed.push(l) : dispute(l.blockNumber));
    for (const a of rest) for (const l of a) if (!l.removed && !sets[0]!.has(identity(l))) dispute(l.blockNumber);
    if (firstDisputed !== undefined) {
      rpcDisagreements.inc({ network: this.net.network, what: 'logs' });
      this.logger.warn({ network: this.net.network, block: firstDisputed.toString() }, 'providers disagree on Transfer logs: nothing from this block on is recorded until they agree');
    }
    return { agreed: firstDisputed === undefined ? agreed : agreed.filter((l) => l.blockNumber < firstDisputed!), firstDisputed };
  }

  private setRange(range: number): void {
    this.range = range;
    this.answersInRow = 0;
    logRange.set({ network: this.net.network }, range);
  }

  private grow(): void {
    if (this.range >= this.opts.maxRange || ++this.answersInRow < GROW_AFTER) return;
    this.setRange(Math.min(this.opts.maxRange, this.range * 2));
  }

  /**
   * Where the stored hashes and the chain part ways: the newest stored block whose hash the
   * chain still has. Everything at or below it is canonical (a hash covers its ancestors).
   */
  private async rewind(cursor: bigint): Promise<bigint | undefined> {
    const { network, providers } = this.net;
    const stored = await this.cursor.recentBlocks(cursor, 200);
    for (const [i, b] of stored.entries()) {
      const onChain = await askAll(network, providers, 'eth_getBlockByNumber', (c) => c.getBlock({ blockNumber: b.number }).then((x) => x.hash, () => null));
      if (onChain.every((h) => h === b.hash)) {
        if (i === 0) return undefined;
        await this.cursor.rewindTo(b.number);
        this.logger.warn({ network, from: cursor.toString(), to: b.number.toString() }, 'chain reorganisation: scanning the new branch again');
        return b.number;
      }
    }
    if (stored.length > 0) {
      // Deeper than every hash kept: no depth of confirmations protects against this, so stop loudly.
      throw new Error(`${network}: none of the last ${stored.length} block hashes kept matches the chain at ${providers.map((p) => p.name).join(', ')}; is it the same chain?`);
    }
    return undefined;
  }

  /** Transfers in ledger units; several logs of one transaction to one address in one token are one payment. */
  private transfersOf(logs: TransferLog[]): FoundTransfer[] {
    const byTxAndTo = new Map<string, { units: bigint; log: TransferLog }>();
    for (const log of logs) {
      const { to, value } = log.args;
      if (log.removed || !to || value === undefined || !tokenAt(this.net, log.address)) continue;
      const key = `${log.transactionHash}:${to}:${log.address.toLowerCase()}`;
      const seen = byTxAndTo.get(key);
      byTxAndTo.set(key, { units: (seen?.units ?? 0n) + value, log: seen?.log ?? log });
    }
    return [...byTxAndTo.values()].map(({ units, log }) => {
      const token = tokenAt(this.net, log.address)!;
      return {
        network: this.net.network,
        currency: token.currency,
        txHash: log.transactionHash,
        fromAddress: log.args.from!,
        toAddress: log.args.to!,
        amount: fromUnits(units, token.decimals),
        blockNumber: Number(log.blockNumber),
      };
    });
  }
}

/**
 * Whether a failed eth_getLogs was the provider refusing the range (a JSON-RPC error, or an
 * HTTP status such as 413 or 400), not a node we could not reach: only a refusal is worth a
 * smaller range.
 */
function isRefusal(err: unknown): boolean {
  let e: unknown = err instanceof ProviderError ? err.cause : err;
  for (let depth = 0; e && depth < 8; depth++) {
    if (e instanceof TimeoutError) return false;
    if (e instanceof HttpRequestError) return e.status !== undefined;
    if (typeof (e as { code?: unknown }).code === 'number') return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}
