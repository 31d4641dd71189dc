import { erc20Abi, getAbiItem } from 'viem';
import type { Clock, Logger } from '@pay/kit';
import type { CryptoDb } from '../../db';
import type { FoundTransfer, RecordTransfers } from '../chain';
import { fromUnits } from './amounts';
import type { EvmNetwork } from './config';
import { WatchCursor } from './cursor';

const TRANSFER = getAbiItem({ abi: erc20Abi, name: 'Transfer' });

/** The token's Transfer logs of a block range, one eth_getLogs. */
function transferLogs(net: EvmNetwork, fromBlock: bigint, toBlock: bigint) {
  return net.client.getLogs({ address: net.token, event: TRANSFER, fromBlock, toBlock });
}
type TransferLog = Awaited<ReturnType<typeof transferLogs>>[number];

export interface WatchOptions {
  /** Most blocks asked of eth_getLogs in one call. */
  maxRange: number;
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
  /** The block the cursor went back to after a reorganisation. */
  rewoundTo?: bigint;
}

/**
 * Follows one network's token from block to block and hands every Transfer it finds to the
 * recorder, which keeps those that pay an invoice. The cursor (the last block fully handed
 * over) lives in Postgres and moves only after its blocks' transfers are recorded, so a
 * restart scans again from there: a transfer recorded twice is refused (by transaction hash and
 * address), and none
 * is skipped. Depth is not decided here: a transfer found at any depth is recorded Pending,
 * and the tracker credits it once its receipt is deep enough in the canonical chain.
 */
export class EvmWatcher {
  readonly cursor: WatchCursor;

  constructor(
    db: CryptoDb,
    private readonly net: EvmNetwork,
    private readonly opts: WatchOptions,
    clock: Clock,
    private readonly logger: Logger,
  ) {
    this.cursor = new WatchCursor(db, net.network, opts.holder, opts.leaseMs, clock);
  }

  /** One bounded step toward the head: at most `maxRange` blocks. */
  async step(record: RecordTransfers): Promise<WatchStep> {
    const { client, network } = this.net;
    const head = await client.getBlockNumber();
    // A first start scans from the deepest block not yet confirmed: older payments to invoices
    // that cannot exist yet need no search.
    const led = await this.cursor.hold(async () => (head >= BigInt(this.net.confirmations) ? head - BigInt(this.net.confirmations) : -1n));
    if (!led) return { led: false, found: 0 };
    let cursor = await this.cursor.position();
    const rewoundTo = await this.rewind(cursor);
    if (rewoundTo !== undefined) cursor = rewoundTo;
    if (cursor >= head) return { led: true, found: 0, rewoundTo };
    const from = cursor + 1n;
    const to = head < cursor + BigInt(this.opts.maxRange) ? head : cursor + BigInt(this.opts.maxRange);
    const toHash = (await client.getBlock({ blockNumber: to })).hash;
    const logs = await transferLogs(this.net, from, to);
    // The logs must come from the branch whose tip we note: a reorganisation while they were read means read again.
    if ((await client.getBlock({ blockNumber: to })).hash !== toHash) return { led: true, found: 0, rewoundTo };
    const found = this.transfersOf(logs);
    await record(found);
    const moved = await this.advance(to, toHash, logs);
    if (!moved) return { led: false, found: found.length };
    return { led: true, from, to, found: found.length, rewoundTo };
  }

  /** Steps until the head is reached (or the lease is lost). */
  async follow(record: RecordTransfers): Promise<number> {
    let found = 0;
    for (;;) {
      const s = await this.step(record);
      found += s.found;
      if (!s.led || s.to === undefined) return found;
    }
  }

  /**
   * Where the stored hashes and the chain part ways: the newest stored block whose hash the
   * chain still has. Everything at or below it is canonical (a hash covers its ancestors).
   */
  private async rewind(cursor: bigint): Promise<bigint | undefined> {
    const { client, network } = this.net;
    const stored = await this.cursor.recentBlocks(cursor, 200);
    for (const [i, b] of stored.entries()) {
      const onChain = await client.getBlock({ blockNumber: b.number }).catch(() => null);
      if (onChain?.hash === b.hash) {
        if (i === 0) return undefined;
        await this.cursor.rewindTo(b.number);
        this.logger.warn({ network, from: cursor.toString(), to: b.number.toString() }, 'chain reorganisation: scanning the new branch again');
        return b.number;
      }
    }
    if (stored.length > 0) {
      // Deeper than every hash kept: no depth of confirmations protects against this, so stop loudly.
      throw new Error(`${network}: none of the last ${stored.length} block hashes kept matches the chain at ${this.net.rpcUrl}; is it the same chain?`);
    }
    return undefined;
  }

  /** Transfers in ledger units; several logs of one transaction to one address are one payment. */
  private transfersOf(logs: TransferLog[]): FoundTransfer[] {
    const byTxAndTo = new Map<string, { units: bigint; log: TransferLog }>();
    for (const log of logs) {
      const { to, value } = log.args;
      if (log.removed || !to || value === undefined) continue;
      const key = `${log.transactionHash}:${to}`;
      const seen = byTxAndTo.get(key);
      byTxAndTo.set(key, { units: (seen?.units ?? 0n) + value, log: seen?.log ?? log });
    }
    return [...byTxAndTo.values()].map(({ units, log }) => ({
      network: this.net.network,
      txHash: log.transactionHash,
      fromAddress: log.args.from!,
      toAddress: log.args.to!,
      amount: fromUnits(units, this.net.decimals),
      blockNumber: Number(log.blockNumber),
    }));
  }

  /** Moves the cursor to `to` with the hashes of its blocks; false if the lease was lost meanwhile. */
  private advance(to: bigint, toHash: string, logs: TransferLog[]): Promise<boolean> {
    const blocks = new Map<bigint, string>([[to, toHash]]);
    for (const l of logs) blocks.set(l.blockNumber, l.blockHash);
    return this.cursor.advance(to, blocks);
  }
}
