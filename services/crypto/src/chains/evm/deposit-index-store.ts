import type { CryptoQueries } from '../../db';

/** The one owner of `deposit_index_counters`: the next unused deposit-address index of a scheme, taken by an atomic increment. */
export async function takeDepositIndex(on: CryptoQueries, scheme: string): Promise<number> {
  const { index } = await on.$kysely
    .insertInto('deposit_index_counters')
    .values({ scheme, next_index: 1 })
    .onConflict((oc) => oc.column('scheme').doUpdateSet((eb) => ({ next_index: eb('deposit_index_counters.next_index', '+', 1) })))
    .returning((eb) => eb('next_index', '-', 1).as('index'))
    .executeTakeFirstOrThrow();
  return Number(index);
}
