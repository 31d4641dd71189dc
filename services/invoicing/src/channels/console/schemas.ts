import { Type } from '@sinclair/typebox';
import { OffsetPage, StringEnum, Timestamp, Uuid } from '@pay/schemas';
import { Delivery, EventKind } from '../../modules/webhooks/schemas';

/** `?mode=` of the payments pages and calls (consoleOwnerFor): whose data they show and change. */
export const ModeQuery = {
  mode: Type.Optional(
    StringEnum(['live', 'test'] as const, {
      description: 'Whose data: `live` or `test`; default the signed-in key’s mode. A live key’s session may ask for `test`; a test key’s session asking for `live` is refused (403)',
    }),
  ),
};
export const ModeOnlyQuery = Type.Object(ModeQuery, { additionalProperties: false });

export const SignInBody = Type.Object({ apiKey: Type.String({ minLength: 1, maxLength: 200, description: 'sk_live_… or sk_test_…; the session acts in its mode' }) }, { additionalProperties: false });

export const SignedIn = Type.Object({
  merchant: Type.Object({ id: Uuid, companyName: Type.String(), email: Type.String(), mode: StringEnum(['test', 'live'] as const) }),
  csrfToken: Type.String({ description: 'Send as X-CSRF-Token with every change' }),
  expiresAt: Timestamp,
});

export const TestBody = Type.Object({ event: Type.Optional(EventKind) }, { additionalProperties: false });

export const Deliveries = OffsetPage(Delivery);
export const IdParams = Type.Object({ id: Uuid });
