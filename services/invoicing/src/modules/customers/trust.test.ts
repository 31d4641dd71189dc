import { trustLevelOf } from './trust';

describe('trust level', () => {
  it.each([
    [0, false, 'NEW'],
    [1, false, 'LEVEL_1'],
    [2, false, 'LEVEL_1'],
    [3, false, 'LEVEL_2'],
    [5, false, 'LEVEL_2'],
    [6, false, 'LEVEL_2'],
    [40, false, 'LEVEL_2'],
    [0, true, 'LEVEL_2'],
    [2, true, 'LEVEL_2'],
    [5, true, 'LEVEL_2'],
    [6, true, 'LEVEL_3'],
    [9, true, 'LEVEL_3'],
  ] as const)('%i payments, KYC %p → %s', (payments, kyc, level) => {
    expect(trustLevelOf(payments, kyc)).toBe(level);
  });
});
