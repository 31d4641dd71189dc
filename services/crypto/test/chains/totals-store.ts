import type { Network } from '../../src/generated/kysely/tables';
import type { SqlQuery } from '../withdrawals/store';

/** The watcher's cursor (block number) of a network, read with SQL text on a database of its own (the bench's pool). */
export async function cursorBlockIn(query: SqlQuery, network: Network): Promise<bigint> {
  const [row] = await query<{ block_number: string }>('SELECT block_number::text FROM crypto.chain_cursors WHERE network = $1', [network]);
  return BigInt(row!.block_number);
}
