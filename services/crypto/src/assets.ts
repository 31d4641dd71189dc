import { join } from 'node:path';

/**
 * The crypto payment page loads the fiat page's own stylesheet and script, so the two pages
 * look and behave alike (countdown, reload at expiry) from one copy of each: they live in
 * services/invoicing/public, which the build's runtime tree always holds. Served here at
 * ASSETS_PATH; `pnpm build` fails when one is missing (see services/invoicing/src/assets.ts).
 * Keep this module free of imports but Node's: the build reads it.
 */
export const PUBLIC_ASSETS = ['pay.css', 'pay.js'] as const;
export type PublicAsset = (typeof PUBLIC_ASSETS)[number];

export const ASSETS_PATH = '/assets/crypto';

/** `..` of this module is the project under tsx (src/) and in the bundle (dist/) alike. */
export const PUBLIC_DIR = join(__dirname, '..', '..', 'invoicing', 'public');

export const assetUrl = (file: PublicAsset): string => `${ASSETS_PATH}/${file}`;
