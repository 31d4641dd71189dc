-- AlterTable
ALTER TABLE "kyc_sessions" DROP COLUMN "language";
