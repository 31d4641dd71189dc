-- AlterTable
ALTER TABLE "events" ADD COLUMN     "dispatched_at" TIMESTAMPTZ(3),
ADD COLUMN     "target_endpoint_id" UUID,
ADD COLUMN     "target_url" TEXT,
ALTER COLUMN "body" SET DATA TYPE JSON;

-- CreateTable
CREATE TABLE "endpoints" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "is_test" BOOLEAN NOT NULL,
    "kind" TEXT NOT NULL,
    "url" TEXT,
    "description" TEXT,
    "events" TEXT[],
    "secret_enc" TEXT,
    "failing_since" TIMESTAMPTZ(3),
    "disabled_at" TIMESTAMPTZ(3),
    "disabled_reason" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "endpoints_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "deliveries" (
    "id" UUID NOT NULL,
    "event_id" UUID NOT NULL,
    "endpoint_id" UUID NOT NULL,
    "event_type" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3),
    "resend_requested_at" TIMESTAMPTZ(3),
    "lease_owner" UUID,
    "last_attempt_at" TIMESTAMPTZ(3),
    "last_status_code" INTEGER,
    "last_error" TEXT,
    "last_response_body" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "attempts" (
    "id" BIGSERIAL NOT NULL,
    "delivery_id" UUID NOT NULL,
    "attempted_at" TIMESTAMPTZ(3) NOT NULL,
    "duration_ms" INTEGER NOT NULL,
    "url" TEXT NOT NULL,
    "status_code" INTEGER,
    "error" TEXT,
    "response_body" TEXT,
    "succeeded" BOOLEAN NOT NULL,
    "manual" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "attempts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "workers" (
    "id" UUID NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "workers_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "endpoints_merchant_id_is_test_created_at_idx" ON "endpoints"("merchant_id", "is_test", "created_at");

-- CreateIndex
CREATE INDEX "deliveries_status_next_attempt_at_idx" ON "deliveries"("status", "next_attempt_at");

-- CreateIndex
CREATE INDEX "deliveries_resend_requested_at_idx" ON "deliveries"("resend_requested_at");

-- CreateIndex
CREATE INDEX "deliveries_endpoint_id_created_at_idx" ON "deliveries"("endpoint_id", "created_at");

-- CreateIndex
CREATE INDEX "deliveries_event_id_idx" ON "deliveries"("event_id");

-- CreateIndex
CREATE INDEX "attempts_delivery_id_attempted_at_idx" ON "attempts"("delivery_id", "attempted_at");

-- CreateIndex
CREATE INDEX "events_dispatched_at_created_at_idx" ON "events"("dispatched_at", "created_at");

-- AddForeignKey
ALTER TABLE "deliveries" ADD CONSTRAINT "deliveries_event_id_fkey" FOREIGN KEY ("event_id") REFERENCES "events"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "deliveries" ADD CONSTRAINT "deliveries_endpoint_id_fkey" FOREIGN KEY ("endpoint_id") REFERENCES "endpoints"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "attempts" ADD CONSTRAINT "attempts_delivery_id_fkey" FOREIGN KEY ("delivery_id") REFERENCES "deliveries"("id") ON DELETE CASCADE ON UPDATE CASCADE;
