import { Type } from '@sinclair/typebox';
import { Email, HttpUrl, Timestamp, Uuid, StringEnum } from '@pay/schemas';

const Text = (max: number) => Type.String({ minLength: 1, maxLength: max, pattern: '\\S' });
const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

export const RegisterBody = Type.Object(
  {
    companyName: Text(200),
    email: Email,
    address: Text(500),
    city: Type.Optional(Text(100)),
    country: Type.Optional(Text(100)),
    webhookUrl: Type.Optional(HttpUrl),
  },
  { additionalProperties: false },
);

export const RegisteredApiKey = Type.Object({
  id: Uuid,
  apiKey: Type.String({ description: 'The key value; shown only in this response' }),
  hmacSecret: Type.String({ description: 'The signing secret; shown only here and on regeneration' }),
  name: Type.String(),
  createdAt: Timestamp,
}, { title: 'RegisteredApiKey' });

export const Registration = Type.Object({
  merchantId: Uuid,
  companyName: Type.String(),
  email: Type.String(),
  status: Type.Literal('Active'),
  apiKey: RegisteredApiKey,
  createdAt: Timestamp,
}, { title: 'MerchantRegistration' });

export const MerchantStatus = StringEnum(['Active', 'Suspended'] as const, { title: 'MerchantStatus' });

export const Profile = Type.Object({
  id: Uuid,
  companyName: Type.String(),
  email: Type.String(),
  address: Type.String(),
  city: Nullable(Type.String()),
  country: Nullable(Type.String()),
  webhookUrl: Nullable(Type.String()),
  testWebhookUrl: { ...Nullable(Type.String()), description: 'Where test-mode events go instead of `webhookUrl`; null: they go to `webhookUrl` (with `livemode: false`)' },
  status: MerchantStatus,
  feePercent: Type.Number({ description: 'Percent taken from each confirmed incoming payment' }),
  isTestMode: Type.Boolean({ description: 'True when the calling key is a test key' }),
  createdAt: Timestamp,
}, { title: 'Merchant' });

export const Stats = Type.Object({
  totalInvoices: Type.Integer(),
  paidInvoices: Type.Integer(),
  pendingInvoices: Type.Integer(),
  expiredInvoices: Type.Integer(),
  totalReceived: Type.Number(),
  totalFees: Type.Number(),
  availableBalance: Type.Number(),
}, { title: 'MerchantStats' });

export const WebhookBody = Type.Object(
  {
    webhookUrl: HttpUrl,
    testWebhookUrl: Type.Optional(
      Type.Union([HttpUrl, Type.Null()], { description: 'Where test-mode events go instead of `webhookUrl`; absent: unchanged; null: cleared (test events go to `webhookUrl` again)' }),
    ),
  },
  { additionalProperties: false },
);
