-- AlterTable
ALTER TABLE "events" ADD COLUMN     "seq" BIGSERIAL NOT NULL;

-- CreateIndex
CREATE UNIQUE INDEX "events_seq_key" ON "events"("seq");
