-- DropIndex
DROP INDEX "deliveries_event_id_idx";

-- CreateIndex
CREATE UNIQUE INDEX "deliveries_event_id_endpoint_id_key" ON "deliveries"("event_id", "endpoint_id");
