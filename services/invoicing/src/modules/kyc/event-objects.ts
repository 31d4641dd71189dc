import { Type } from '@sinclair/typebox';
import { Timestamp, Uuid } from '@pay/schemas';

/* The session the `kyc.*` events carry (their entries in ../event-catalogue.ts). */

const Metadata = Type.Record(Type.String(), Type.Unknown(), { description: 'The object given at creation' });
const Nullable = <T extends ReturnType<typeof Type.String>>(s: T) => Type.Union([s, Type.Null()]);

const V1_KYC_STATUS: Record<string, string> = { APPROVED: 'completed', DECLINED: 'failed', IN_PROGRESS: 'in_progress' };

/** A v2 session in the v2 vocabulary; a v1 session (POST /api/v1/kyc/sessions) in the v1 shape and statuses. */
export function kycSession(status: string) {
  const reason = Type.Union([Type.String(), Type.Null()], { description: 'Why the session was declined or sent to review; null when passed' });
  const v2 = Type.Object(
    {
      id: Uuid,
      sessionId: Type.String(),
      status: Type.Literal(status),
      invoiceId: Type.Union([Uuid, Type.Null()]),
      customerId: Nullable(Type.String()),
      customerEmail: Nullable(Type.String()),
      customerPhone: Nullable(Type.String()),
      reason: Type.Optional(reason),
      updatedAt: Timestamp,
    },
    { additionalProperties: false, description: 'A session made through v2, in the v2 vocabulary' },
  );
  const v1 = Type.Object(
    { id: Uuid, level: Type.Union([Type.Literal('basic'), Type.Literal('advanced')]), status: Type.Literal(V1_KYC_STATUS[status]!), metadata: Metadata, reason, updatedAt: Timestamp },
    { additionalProperties: false, description: 'A session made through v1 (POST /api/v1/kyc/sessions), in the v1 shape and statuses' },
  );
  return Type.Union([v2, v1]);
}
