import { pgAdapter } from '@pay/kit';
import { PrismaClient } from './generated/prisma/client';

export const CRYPTO_SCHEMA = 'crypto';

export function createCryptoDb(databaseUrl: string, poolSize = 10): PrismaClient {
  return new PrismaClient({ adapter: pgAdapter(databaseUrl, CRYPTO_SCHEMA, poolSize) });
}

export type CryptoDb = PrismaClient;
export { Prisma } from './generated/prisma/client';
