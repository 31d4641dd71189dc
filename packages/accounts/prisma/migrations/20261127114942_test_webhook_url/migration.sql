-- AlterTable
ALTER TABLE "merchants" ADD COLUMN     "test_webhook_url" TEXT;
