-- CreateTable
CREATE TABLE "console_sessions" (
    "token_hash" TEXT NOT NULL,
    "merchant_id" UUID NOT NULL,
    "key_id" UUID NOT NULL,
    "csrf_token" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "console_sessions_pkey" PRIMARY KEY ("token_hash")
);

-- CreateIndex
CREATE INDEX "console_sessions_expires_at_idx" ON "console_sessions"("expires_at");

-- AddForeignKey
ALTER TABLE "console_sessions" ADD CONSTRAINT "console_sessions_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "console_sessions" ADD CONSTRAINT "console_sessions_key_id_fkey" FOREIGN KEY ("key_id") REFERENCES "api_keys"("id") ON DELETE CASCADE ON UPDATE CASCADE;
