-- AlterTable
ALTER TABLE "withdrawals" ADD COLUMN     "held_reason" TEXT;
