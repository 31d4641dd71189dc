import { Type } from '@sinclair/typebox';
import { NullableTimestamp, OffsetQuery, StringEnum, Timestamp, Uuid } from '@pay/schemas';

/** A customer's KYC status. */
export const KycStatusName = StringEnum(['PENDING', 'VERIFIED', 'REJECTED'] as const, { title: 'KycStatus' });
export const TrustLevelName = StringEnum(['NEW', 'LEVEL_1', 'LEVEL_2', 'LEVEL_3'] as const, { title: 'TrustLevel' });
const NullableString = Type.Union([Type.String(), Type.Null()]);

export const CustomerJson = Type.Object(
  {
    id: Uuid,
    fullName: Type.Union([Type.String(), Type.Null()], { description: 'The latest name given on a paid invoice; null if none was' }),
    email: Type.Union([Type.String(), Type.Null()], { description: 'Lower-case' }),
    phone: NullableString,
    kycStatus: KycStatusName,
    trustLevel: TrustLevelName,
    totalPayments: Type.Integer({ minimum: 0, description: 'Paid invoices (refunds do not lower it)' }),
    totalAmount: Type.Number({ description: 'Rubles paid, less refunds' }),
    lastPaymentAt: NullableTimestamp,
    isBlocked: Type.Boolean(),
    blockedAt: Type.Optional(Timestamp),
    blockedReason: Type.Optional(NullableString),
    createdAt: Timestamp,
  },
  { title: 'Customer', additionalProperties: false, description: 'A blocked customer also has `blockedAt` and `blockedReason`' },
);

export const ListCustomersQuery = Type.Object(
  {
    ...OffsetQuery(100),
    search: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Part of the name, e-mail or phone (case-insensitive)' })),
    kycStatus: Type.Optional(KycStatusName),
    trustLevel: Type.Optional(TrustLevelName),
  },
  { additionalProperties: false },
);

export const CustomerParams = Type.Object({ customerId: Uuid });
export const BlockBody = Type.Object({ reason: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })) }, { additionalProperties: false });

export const BlockState = Type.Object(
  { id: Uuid, isBlocked: Type.Boolean(), blockedAt: NullableTimestamp, blockedReason: NullableString },
  { title: 'CustomerBlockState', additionalProperties: false },
);
