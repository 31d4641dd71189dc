import { Type } from '@sinclair/typebox';
import { BRAND_LANGUAGES, LOGO_TYPES, MAX_LOGO_BYTES, merchantBrand, setMerchantBrand, type MerchantBrand } from '@pay/accounts';
import { html, LANGUAGE_NAMES, type Api } from '@pay/http';
import { StringEnum } from '@pay/schemas';
import type { ConsoleDeps } from '../../deps';
import { brandJson } from '../../modules/brand/routes';
import { BrandJson } from '../../modules/brand/schemas';
import { layout, sessionFrame } from './layout';

const tags = ['Console'];
export const SETTINGS_PATH = '/console/settings';


/**
 * The settings form as console.js sends it: every field, as text; an empty one clears its value
 * (the display name goes back to `companyName`, the colour to the pages' own).
 */
const BrandForm = Type.Object(
  {
    displayName: Type.Optional(Type.String({ maxLength: 200 })),
    // Checked by setMerchantBrand, whose refusal says how a colour is written.
    brandColor: Type.Optional(Type.String({ maxLength: 20 })),
    defaultLanguage: Type.Optional(StringEnum(BRAND_LANGUAGES)),
  },
  { additionalProperties: false },
);

const Answer = { status: 200, schema: Type.Object({ brand: BrandJson }) } as const;

/** The console's brand calls: the same `setMerchantBrand` the v2 API runs, behind the session and its CSRF token. */
export function consoleBrandRoutes(api: Api, deps: ConsoleDeps): void {
  api.route({
    method: 'patch',
    path: '/console/api/brand',
    operationId: 'consoleUpdateBrand',
    summary: 'Change the merchant’s display name, colour and default language',
    tags,
    auth: 'session',
    body: BrandForm,
    response: Answer,
    handler: async ({ auth, body }) => {
      const cleared = (v: string | undefined) => (v === undefined ? undefined : v.trim() === '' ? null : v);
      const brand = await setMerchantBrand(
        deps.db,
        auth.merchantId,
        { displayName: cleared(body.displayName), brandColor: cleared(body.brandColor), defaultLanguage: body.defaultLanguage },
        deps.clock.now(),
      );
      return { body: { brand: brandJson(brand) } };
    },
  });

  api.route({
    method: 'put',
    path: '/console/api/brand/logo',
    operationId: 'consoleSetLogo',
    summary: 'Upload the merchant’s logo (PNG or JPEG)',
    tags,
    auth: 'session',
    upload: { files: { file: { required: true, maxBytes: MAX_LOGO_BYTES, types: LOGO_TYPES } } },
    response: Answer,
    handler: async ({ auth, files }) => ({ body: { brand: brandJson(await setMerchantBrand(deps.db, auth.merchantId, { logo: files.file!.bytes }, deps.clock.now())) } }),
  });

  api.route({
    method: 'delete',
    path: '/console/api/brand/logo',
    operationId: 'consoleDeleteLogo',
    summary: 'Remove the merchant’s logo',
    tags,
    auth: 'session',
    response: Answer,
    handler: async ({ auth }) => ({ body: { brand: brandJson(await setMerchantBrand(deps.db, auth.merchantId, { logo: null }, deps.clock.now())) } }),
  });
}

/** Settings: how payers see the merchant on its pages and e-mails. */
export function consoleBrandPages(pages: Api, deps: ConsoleDeps): void {
  pages.page({
    method: 'get',
    path: SETTINGS_PATH,
    summary: 'How payers see the merchant: display name, logo, colour, e-mail language',
    auth: 'session',
    handler: async ({ req, auth }) => {
      const b = await merchantBrand(deps.db, auth!.merchantId);
      return {
        html: layout({
          title: 'Settings',
          session: await sessionFrame(deps, req, auth!),
          body: html`<h1>Settings</h1>
<section class="panel"><h2>How payers see you</h2>
<p class="muted">Your name, logo and colour open the payment and KYC pages, and your name signs your batch e-mails (“${b.displayName} via Payments”; replies go to ${b.email}). The same for test and live mode.</p>
<form data-api="/console/api/brand" data-method="PATCH" data-testid="brand-form">
<label>Display name <input name="displayName" maxlength="100" value="${b.displayName}" data-testid="display-name"></label>
<label>Brand colour <input name="brandColor" pattern="#[0-9a-fA-F]{6}" placeholder="#0b3d91" value="${b.brandColor ?? ''}" aria-describedby="colour-hint" data-testid="brand-color"></label>
<p class="muted" id="colour-hint">Written #rrggbb; empty for the pages’ own colours. Text on it is black or white, whichever reads better.</p>
<label>Language of e-mails <select name="defaultLanguage" data-testid="default-language">${BRAND_LANGUAGES.map(
            (l) => html`<option value="${l}" ${l === b.defaultLanguage ? html`selected` : ''}>${LANGUAGE_NAMES[l]}</option>`,
          )}</select></label>
<button class="primary">Save</button><p class="form-error" data-error></p></form></section>
<section class="panel"><h2>Logo</h2>
${b.logoUrl ? html`<p><img class="logo-preview" src="${b.logoUrl}" alt="Your logo" height="40" data-testid="logo-preview"></p>` : html`<p class="muted" data-testid="no-logo">No logo yet.</p>`}
<form data-api="/console/api/brand/logo" data-method="PUT" enctype="multipart/form-data" data-testid="logo-form">
<label>PNG or JPEG, at most ${Math.round(MAX_LOGO_BYTES / 1024)} KB <input type="file" name="file" accept="${LOGO_TYPES.join(',')}" required data-testid="logo-file"></label>
<button class="primary">Upload logo</button><p class="form-error" data-error></p></form>
${b.logoUrl ? html`<form data-api="/console/api/brand/logo" data-method="DELETE"><button class="danger">Remove logo</button><span class="form-error" data-error></span></form>` : ''}
</section>`,
        }),
      };
    },
  });
}
