-- DropIndex
DROP INDEX "deliveries_resend_requested_at_idx";

-- DropIndex
DROP INDEX "deliveries_status_next_attempt_at_idx";

-- DropIndex
DROP INDEX "events_dispatched_at_created_at_idx";

-- CreateIndex
CREATE INDEX "deliveries_pending_idx" ON "deliveries"("next_attempt_at") WHERE (status = 'pending');

-- CreateIndex
CREATE INDEX "deliveries_resend_requested_idx" ON "deliveries"("resend_requested_at") WHERE (resend_requested_at IS NOT NULL);

-- CreateIndex
CREATE INDEX "events_undispatched_idx" ON "events"("seq") WHERE (dispatched_at IS NULL);
