-- AlterTable
ALTER TABLE "receipts" ADD COLUMN     "rejection_code" TEXT;
