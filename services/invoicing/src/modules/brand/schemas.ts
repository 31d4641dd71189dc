import { Type } from '@sinclair/typebox';
import { BRAND_COLOR_PATTERN, BRAND_LANGUAGES, MAX_DISPLAY_NAME_LENGTH } from '@pay/accounts';
import { StringEnum } from '@pay/schemas';

const Color = Type.String({ pattern: BRAND_COLOR_PATTERN, description: '`#rrggbb`', examples: ['#0b3d91'] });
const Language = StringEnum(BRAND_LANGUAGES, { description: 'ru, en or kk' });

/** How payers see the merchant (`merchantBrand` of @pay/accounts), as the API shows it. */
export const BrandJson = Type.Object(
  {
    displayName: Type.String({ description: 'Shown to payers on the payment and KYC pages and in e-mails; `companyName` until one is set.' }),
    brandColor: Type.Union([Color, Type.Null()], { description: 'The colour of the merchant’s bar on the pages, or null.' }),
    brandTextColor: Type.Union([StringEnum(['#000000', '#ffffff'] as const), Type.Null()], {
      description: 'The text colour used on `brandColor`: black or white, whichever contrasts more (at least 4.58:1, WCAG AA). Null with `brandColor`.',
    }),
    logoUrl: Type.Union([Type.String(), Type.Null()], { description: 'The logo as a `data:image/png;base64,…` (or jpeg) URL, or null.' }),
    defaultLanguage: Language,
  },
  { title: 'Brand', additionalProperties: false },
);

export const BrandChangeBody = Type.Object(
  {
    displayName: Type.Optional(
      Type.Union([Type.String({ minLength: 1, maxLength: MAX_DISPLAY_NAME_LENGTH }), Type.Null()], {
        description: `1 to ${MAX_DISPLAY_NAME_LENGTH} characters, no line breaks, control characters or direction overrides; null: \`companyName\` again.`,
      }),
    ),
    brandColor: Type.Optional(Type.Union([Color, Type.Null()], { description: 'null: the pages’ own colours.' })),
    defaultLanguage: Type.Optional(Language),
  },
  { additionalProperties: false, minProperties: 1 },
);
