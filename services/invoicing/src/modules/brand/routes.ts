import { Type } from '@sinclair/typebox';
import { LOGO_TYPES, MAX_LOGO_BYTES, merchantBrand, setMerchantBrand, type MerchantBrand } from '@pay/accounts';
import type { Api } from '@pay/http';
import type { BrandDeps } from '../../deps';
import { BrandChangeBody, BrandJson } from './schemas';

const tags = ['Merchant'];

const ABOUT =
  'The merchant’s identity as payers see it: its name (and logo and colour) at the top of the hosted payment and KYC pages and of the crypto ' +
  'payment page, and as the sender of batch e-mails ("<displayName> via <platform>", replies going to the merchant’s registered e-mail), ' +
  'which are written in `defaultLanguage`. One brand per merchant, for both modes: a test key changes it too.';

export const brandJson = (b: MerchantBrand) => ({
  displayName: b.displayName,
  brandColor: b.brandColor,
  brandTextColor: b.brandTextColor,
  logoUrl: b.logoUrl,
  defaultLanguage: b.defaultLanguage,
});

const Answer = { status: 200, schema: Type.Object({ brand: BrandJson }) } as const;

export function brandRoutes(api: Api, deps: BrandDeps): void {
  api.route({
    method: 'get',
    path: '/api/v2/merchant/brand',
    operationId: 'getMerchantBrand',
    summary: 'The merchant’s brand',
    description: ABOUT,
    tags,
    auth: 'signed',
    response: Answer,
    handler: async ({ auth }) => ({ body: { brand: brandJson(await merchantBrand(deps.db, auth.merchantId)) } }),
  });

  api.route({
    method: 'patch',
    path: '/api/v2/merchant/brand',
    operationId: 'updateMerchantBrand',
    summary: 'Change the merchant’s name, colour or language',
    description: `Fields left out keep their value; null clears one. ${ABOUT}`,
    tags,
    auth: 'signed',
    body: BrandChangeBody,
    response: Answer,
    handler: async ({ auth, body }) => ({ body: { brand: brandJson(await setMerchantBrand(deps.db, auth.merchantId, body, deps.clock.now())) } }),
  });

  api.route({
    method: 'put',
    path: '/api/v2/merchant/brand/logo',
    operationId: 'setMerchantLogo',
    summary: 'Upload the merchant’s logo',
    description:
      `Multipart form with one file in \`file\`: a PNG or JPEG, judged by its bytes, at most ${MAX_LOGO_BYTES} bytes (larger is refused with 413). ` +
      'SVG is refused (it can carry script). The logo is shown at most 40 px high beside the name, inline (a `data:` URL), so payers’ browsers ' +
      'never fetch anything from elsewhere. The signature covers the multipart body as sent.',
    tags,
    auth: 'signed',
    upload: { files: { file: { required: true, maxBytes: MAX_LOGO_BYTES, types: LOGO_TYPES } } },
    response: Answer,
    handler: async ({ auth, files }) => ({ body: { brand: brandJson(await setMerchantBrand(deps.db, auth.merchantId, { logo: files.file!.bytes }, deps.clock.now())) } }),
  });

  api.route({
    method: 'delete',
    path: '/api/v2/merchant/brand/logo',
    operationId: 'deleteMerchantLogo',
    summary: 'Remove the merchant’s logo',
    tags,
    auth: 'signed',
    response: Answer,
    handler: async ({ auth }) => ({ body: { brand: brandJson(await setMerchantBrand(deps.db, auth.merchantId, { logo: null }, deps.clock.now())) } }),
  });
}
