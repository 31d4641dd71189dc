-- CreateEnum
CREATE TYPE "KycSessionStatus" AS ENUM ('NOT_STARTED', 'IN_PROGRESS', 'APPROVED', 'DECLINED', 'EXPIRED');

-- CreateEnum
CREATE TYPE "KycLevel" AS ENUM ('basic', 'advanced');

-- CreateEnum
CREATE TYPE "KycCheckState" AS ENUM ('CHECKING', 'MANUAL_REVIEW', 'DECIDED');

-- CreateTable
CREATE TABLE "kyc_sessions" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "is_test" BOOLEAN NOT NULL,
    "api" "ApiVersion" NOT NULL,
    "session_id" TEXT NOT NULL,
    "status" "KycSessionStatus" NOT NULL DEFAULT 'NOT_STARTED',
    "level" "KycLevel" NOT NULL DEFAULT 'basic',
    "language" TEXT NOT NULL,
    "invoice_id" UUID,
    "customer_email" TEXT,
    "customer_phone" TEXT,
    "customer_ref" TEXT,
    "return_url" TEXT,
    "webhook_url" TEXT,
    "metadata" JSONB,
    "check_state" "KycCheckState",
    "reason" TEXT,
    "checks" JSONB,
    "first_name" TEXT,
    "last_name" TEXT,
    "middle_name" TEXT,
    "date_of_birth" DATE,
    "document_type" TEXT,
    "document_number" TEXT,
    "document_country" TEXT,
    "document_issued_at" DATE,
    "document_expires_at" DATE,
    "mrz" TEXT,
    "face_match_score" DECIMAL(4,3),
    "liveness_score" DECIMAL(4,3),
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "submitted_at" TIMESTAMPTZ(3),
    "verified_at" TIMESTAMPTZ(3),
    "decided_at" TIMESTAMPTZ(3),
    "decided_by" TEXT,

    CONSTRAINT "kyc_sessions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "kyc_files" (
    "id" UUID NOT NULL,
    "session_id" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "sha256" TEXT NOT NULL,
    "bytes" BYTEA NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "kyc_files_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "kyc_sessions_session_id_key" ON "kyc_sessions"("session_id");

-- CreateIndex
CREATE INDEX "kyc_sessions_merchant_id_is_test_created_at_id_idx" ON "kyc_sessions"("merchant_id", "is_test", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "kyc_sessions_merchant_id_is_test_status_created_at_idx" ON "kyc_sessions"("merchant_id", "is_test", "status", "created_at" DESC);

-- CreateIndex
CREATE INDEX "kyc_sessions_merchant_id_is_test_invoice_id_idx" ON "kyc_sessions"("merchant_id", "is_test", "invoice_id");

-- CreateIndex
CREATE INDEX "kyc_sessions_status_expires_at_idx" ON "kyc_sessions"("status", "expires_at");

-- CreateIndex
CREATE INDEX "kyc_sessions_check_state_submitted_at_idx" ON "kyc_sessions"("check_state", "submitted_at");

-- CreateIndex
CREATE UNIQUE INDEX "kyc_files_session_id_kind_key" ON "kyc_files"("session_id", "kind");

-- AddForeignKey
ALTER TABLE "kyc_files" ADD CONSTRAINT "kyc_files_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "kyc_sessions"("id") ON DELETE CASCADE ON UPDATE CASCADE;
