-- AlterTable
ALTER TABLE "invoice_emails" ADD COLUMN     "language" TEXT;
