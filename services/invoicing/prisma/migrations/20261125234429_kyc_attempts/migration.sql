-- A declined attempt with attempts left waits for the customer's next one.
ALTER TYPE "KycCheckState" ADD VALUE 'RETRY';

-- The score is the selfie's capture quality (sharpness × exposure), not liveness: renamed, kept.
ALTER TABLE "kyc_sessions" RENAME COLUMN "liveness_score" TO "image_quality_score";

-- Attempts: how many the customer may send, and how many they have sent.
ALTER TABLE "kyc_sessions"
ADD COLUMN     "attempts" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "max_attempts" INTEGER NOT NULL DEFAULT 3;

-- Sessions submitted before attempts were counted have used their one attempt.
UPDATE "kyc_sessions" SET "attempts" = 1 WHERE "submitted_at" IS NOT NULL;

ALTER TABLE "kyc_sessions" ADD CONSTRAINT "kyc_sessions_attempts_within_max"
  CHECK ("max_attempts" BETWEEN 1 AND 10 AND "attempts" BETWEEN 0 AND "max_attempts");
