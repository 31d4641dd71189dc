-- CreateTable
CREATE TABLE "events" (
    "id" UUID NOT NULL,
    "source" TEXT NOT NULL,
    "merchant_id" UUID NOT NULL,
    "is_test" BOOLEAN NOT NULL,
    "type" TEXT NOT NULL,
    "body" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "events_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "events_merchant_id_is_test_created_at_idx" ON "events"("merchant_id", "is_test", "created_at");
