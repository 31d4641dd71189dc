export type TrustLevel = 'NEW' | 'LEVEL_1' | 'LEVEL_2' | 'LEVEL_3';

/**
 * The levels: NEW; LEVEL_1 for 1–2 successful payments; LEVEL_2 for 3–5 payments or
 * KYC; LEVEL_3 for 6+ payments and KYC. Six or more payments without KYC stay LEVEL_2: more
 * payments never lower the level, and LEVEL_3 needs KYC.
 */
export function trustLevelOf(payments: number, kycVerified: boolean): TrustLevel {
  if (payments >= 6 && kycVerified) return 'LEVEL_3';
  if (payments >= 3 || kycVerified) return 'LEVEL_2';
  if (payments >= 1) return 'LEVEL_1';
  return 'NEW';
}
