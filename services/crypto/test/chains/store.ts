import type { CryptoQueries } from '../../src/db';
import type { Network, SweepStatus } from '../../src/generated/kysely/tables';
import { sweepOf, type SweepTransferRecord } from '../../src/chains/evm/sweep-store';

/** Tests' reads and writes of the chains module's tables (cursors, blocks, payouts, sweeps): only here. */

/** Forgets the watcher's state of a network (its cursor and block hashes): a devnet starts at block 0. */
export async function forgetWatcher(on: CryptoQueries, network: Network): Promise<void> {
  await on.$kysely.deleteFrom('chain_cursors').where('network', '=', network).execute();
  await on.$kysely.deleteFrom('chain_blocks').where('network', '=', network).execute();
}

/** Forgets a network's hot wallets and their signed payouts (an earlier devnet's). */
export async function forgetPayouts(on: CryptoQueries, network: Network): Promise<void> {
  await on.$kysely.deleteFrom('payout_transactions').where('network', '=', network).execute();
  await on.$kysely.deleteFrom('payout_wallets').where('network', '=', network).execute();
}

/** Forgets a network's sweeps (an earlier devnet's). */
export async function forgetSweeps(on: CryptoQueries, network: Network): Promise<void> {
  await on.$kysely.deleteFrom('sweep_transfers').where('network', '=', network).execute();
}

/**
 * Forgets everything the crypto service remembers of a network's chain (the watcher's cursor and
 * block hashes, hot wallets and signed payouts, sweeps): a new devnet is a new chain, and the
 * watcher rightly stops at "is it the same chain?" while an earlier devnet's state is there.
 */
export async function forgetDevnet(on: CryptoQueries, network: Network): Promise<void> {
  await forgetWatcher(on, network);
  await forgetPayouts(on, network);
  await forgetSweeps(on, network);
}

/** The watcher's cursor of a network (it must exist). */
export async function cursorOf(on: CryptoQueries, network: Network): Promise<{ blockNumber: bigint; leader: string | null }> {
  const row = await on.$kysely.selectFrom('chain_cursors').select(['block_number', 'leader']).where('network', '=', network).executeTakeFirstOrThrow();
  return { blockNumber: BigInt(row.block_number), leader: row.leader };
}

/** The sweeps matching every filter given, largest first. */
export async function sweepsWhere(on: CryptoQueries, where: { network?: Network; txHash?: string; fromAddress?: string; status?: SweepStatus }): Promise<SweepTransferRecord[]> {
  const rows = await on.$kysely
    .selectFrom('sweep_transfers')
    .selectAll()
    .$if(where.network !== undefined, (q) => q.where('network', '=', where.network!))
    .$if(where.txHash !== undefined, (q) => q.where('tx_hash', '=', where.txHash!))
    .$if(where.fromAddress !== undefined, (q) => q.where('from_address', '=', where.fromAddress!))
    .$if(where.status !== undefined, (q) => q.where('status', '=', where.status!))
    .orderBy('units', 'desc')
    .execute();
  return rows.map(sweepOf);
}

/** The one sweep with this hash. */
export async function sweepByHash(on: CryptoQueries, txHash: string): Promise<SweepTransferRecord> {
  const [sweep] = await sweepsWhere(on, { txHash });
  if (!sweep) throw new Error(`no sweep ${txHash}`);
  return sweep;
}

/** How many signed payout transactions a withdrawal has. */
export async function payoutCount(on: CryptoQueries, withdrawalId: string): Promise<number> {
  const { n } = await on.$kysely.selectFrom('payout_transactions').select((eb) => eb.fn.countAll<string>().as('n')).where('withdrawal_id', '=', withdrawalId).executeTakeFirstOrThrow();
  return Number(n);
}

/** Forgets one hot wallet (a test's own, registered with registerPayoutWallet). */
export async function forgetPayoutWallet(on: CryptoQueries, address: string): Promise<void> {
  await on.$kysely.deleteFrom('payout_wallets').where('address', '=', address).execute();
}
