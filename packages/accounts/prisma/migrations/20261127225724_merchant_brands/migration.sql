-- CreateTable
CREATE TABLE "merchant_brands" (
    "merchant_id" UUID NOT NULL,
    "display_name" TEXT,
    "brand_color" TEXT,
    "logo" BYTEA,
    "logo_type" TEXT,
    "default_language" TEXT NOT NULL DEFAULT 'ru',
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "merchant_brands_pkey" PRIMARY KEY ("merchant_id")
);

-- AddForeignKey
ALTER TABLE "merchant_brands" ADD CONSTRAINT "merchant_brands_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;
