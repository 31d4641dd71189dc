import type { Clock } from '@pay/kit';
import type { CryptoDb } from '../../db';
import type { Network } from '../../generated/prisma/client';

/**
 * Leadership of one network's watcher across replicas, as a lease on its cursor row: a
 * replica leads while its lease runs and renews it on every pass; when the leader dies, its
 * lease runs out and the next replica to ask takes over where the cursor stands. A lease
 * (rather than a session advisory lock) survives the pool handing out another connection,
 * and fences the cursor: only the holder's cursor moves are applied.
 */
export class Lease {
  constructor(
    private readonly db: CryptoDb,
    private readonly network: Network,
    readonly holder: string,
    private readonly leaseMs: number,
    private readonly clock: Clock,
  ) {}

  /** Takes or renews the lease; true while this replica leads. A new cursor starts at `startAt`. */
  async hold(startAt: () => Promise<bigint>): Promise<boolean> {
    const now = this.clock.now();
    const until = new Date(now.getTime() + this.leaseMs);
    const renewed = await this.db.$executeRaw`
      UPDATE chain_cursors SET leader = ${this.holder}, lease_until = ${until}
       WHERE network = ${this.network}::"Network" AND (leader = ${this.holder} OR lease_until < ${now})`;
    if (renewed > 0) return true;
    const exists = await this.db.chainCursor.findUnique({ where: { network: this.network }, select: { network: true } });
    if (exists) return false;
    const created = await this.db.$executeRaw`
      INSERT INTO chain_cursors (network, block_number, leader, lease_until)
      VALUES (${this.network}::"Network", ${await startAt()}, ${this.holder}, ${until}) ON CONFLICT (network) DO NOTHING`;
    return created > 0;
  }

  /** Gives the lease up (a clean shutdown), so another replica takes over at once. */
  async release(): Promise<void> {
    await this.db.chainCursor.updateMany({ where: { network: this.network, leader: this.holder }, data: { leader: null, leaseUntil: new Date(0) } });
  }
}
