import { randomUUID } from 'node:crypto';
import { metricsRegistry } from '@pay/runtime';
import { eventually } from '@pay/testing';
import { createCryptoDatabase } from '../../db';
import { watchWithdrawals } from './metrics';
import { deleteWithdrawalsOf, insertProcessingWithdrawal, processingCount } from '../../../test/withdrawals/store';

/** Withdrawals sent and not settled, as /metrics reports them where the withdrawal worker runs (the alert on stuck payouts reads them). */
describe('withdrawal metrics', () => {
  const database = createCryptoDatabase(process.env.DATABASE_URL!, 2);
  const db = database.db;
  afterAll(() => database.close());

  const gauge = async (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(await metricsRegistry.metrics())?.[1]);

  it('count the withdrawals in Processing and age the oldest since it was sent', async () => {
    const unwatch = watchWithdrawals(db);
    const merchantId = randomUUID();
    try {
      // Earlier files of this jest worker may have left some in Processing: count from theirs.
      const before = await processingCount(db);
      await eventually(async () => expect(await gauge('crypto_withdrawals_processing')).toBe(before));
      const sentAt = new Date(Date.now() - 45 * 60_000);
      await insertProcessingWithdrawal(db, merchantId, sentAt);
      await eventually(async () => expect(await gauge('crypto_withdrawals_processing')).toBe(before + 1));
      // Ours, or an older one left earlier.
      expect(await gauge('crypto_withdrawal_oldest_processing_seconds')).toBeGreaterThanOrEqual(45 * 60);
    } finally {
      unwatch();
      await deleteWithdrawalsOf(db, merchantId);
    }
  });
});
