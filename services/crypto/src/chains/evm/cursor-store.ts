import type { Clock } from '@pay/runtime';
import type { CryptoDb } from '../../db';
import type { Network } from '../../generated/prisma/client';

/** Block hashes kept behind the cursor: deeper than any reorganisation the confirmations allow. */
const KEPT_BLOCKS = 1000n;

/**
 * A network watcher's state in Postgres, and the one owner of `chain_cursors` and
 * `chain_blocks`: how far the watcher has followed the network (the cursor), the recent block
 * hashes that reveal a reorganisation, and which replica leads.
 *
 * Leadership is a lease on the cursor row: a replica leads while its lease runs and renews it
 * on every pass; when the leader dies, its lease runs out and the next replica to ask takes
 * over where the cursor stands. A lease (rather than a session advisory lock) survives the
 * pool handing out another connection, and fences the cursor: only the holder's cursor moves
 * are applied.
 */
export class WatchCursor {
  constructor(
    private readonly db: CryptoDb,
    private readonly network: Network,
    readonly holder: string,
    private readonly leaseMs: number,
    private readonly clock: Clock,
  ) {}

  /** Takes or renews the lease; true while this replica leads. A new cursor starts at `startAt`. */
  async hold(startAt: () => Promise<bigint>): Promise<boolean> {
    const tables = this.db.$kysely;
    const now = this.clock.now();
    const until = new Date(now.getTime() + this.leaseMs);
    const renewed = await tables
      .updateTable('chain_cursors')
      .set({ leader: this.holder, lease_until: until })
      .where('network', '=', this.network)
      .where((eb) => eb.or([eb('leader', '=', this.holder), eb('lease_until', '<', now)]))
      .executeTakeFirst();
    if (renewed.numUpdatedRows > 0n) return true;
    const exists = await tables.selectFrom('chain_cursors').select('network').where('network', '=', this.network).executeTakeFirst();
    if (exists) return false;
    const created = await tables
      .insertInto('chain_cursors')
      .values({ network: this.network, block_number: (await startAt()).toString(), leader: this.holder, lease_until: until })
      .onConflict((oc) => oc.column('network').doNothing())
      .executeTakeFirst();
    return (created.numInsertedOrUpdatedRows ?? 0n) > 0n;
  }

  /**
   * Whether this replica holds an unexpired lease now, without taking or renewing it: the
   * network's other periodic jobs (the solvency check) run where its watcher leads, so one
   * replica of all runs them.
   */
  async leads(): Promise<boolean> {
    const row = await this.db.$kysely
      .selectFrom('chain_cursors')
      .select('network')
      .where('network', '=', this.network)
      .where('leader', '=', this.holder)
      .where('lease_until', '>', this.clock.now())
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Gives the lease up (a clean shutdown), so another replica takes over at once. */
  async release(): Promise<void> {
    await this.db.$kysely
      .updateTable('chain_cursors')
      .set({ leader: null, lease_until: new Date(0) })
      .where('network', '=', this.network)
      .where('leader', '=', this.holder)
      .execute();
  }

  /** The last block whose transfers were all recorded. */
  async position(): Promise<bigint> {
    const row = await this.db.$kysely.selectFrom('chain_cursors').select('block_number').where('network', '=', this.network).executeTakeFirstOrThrow();
    return BigInt(row.block_number);
  }

  /** The newest stored block hashes at or below `cursor`, newest first. */
  async recentBlocks(cursor: bigint, limit: number): Promise<{ number: bigint; hash: string }[]> {
    const rows = await this.db.$kysely
      .selectFrom('chain_blocks')
      .select(['number', 'hash'])
      .where('network', '=', this.network)
      .where('number', '<=', cursor.toString())
      .orderBy('number', 'desc')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ number: BigInt(r.number), hash: r.hash }));
  }

  /** Back to `block` after a reorganisation: the hashes above it are forgotten, and the cursor moves there if we still lead. */
  async rewindTo(block: bigint): Promise<void> {
    const tables = this.db.$kysely;
    await tables.deleteFrom('chain_blocks').where('network', '=', this.network).where('number', '>', block.toString()).execute();
    await tables.updateTable('chain_cursors').set({ block_number: block.toString() }).where('network', '=', this.network).where('leader', '=', this.holder).execute();
  }

  /**
   * Moves the cursor to `to` and keeps the hashes needed to notice a reorganisation, in one
   * transaction; false if the lease was lost meanwhile.
   */
  async advance(to: bigint, blocks: Map<bigint, string>): Promise<boolean> {
    return this.db.$transaction(async (tx) => {
      const tables = tx.$kysely;
      const moved = await tables
        .updateTable('chain_cursors')
        .set({ block_number: to.toString() })
        .where('network', '=', this.network)
        .where('leader', '=', this.holder)
        .executeTakeFirst();
      if (moved.numUpdatedRows === 0n) return false;
      await tables
        .insertInto('chain_blocks')
        .values([...blocks].map(([number, hash]) => ({ network: this.network, number: number.toString(), hash })))
        .onConflict((oc) => oc.doNothing())
        .execute();
      await tables.deleteFrom('chain_blocks').where('network', '=', this.network).where('number', '<', (to - KEPT_BLOCKS).toString()).execute();
      return true;
    });
  }
}
