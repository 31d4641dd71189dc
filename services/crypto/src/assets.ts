import { join } from 'node:path';

/**
 * The crypto payment page's own script and stylesheet (services/crypto/public), served at
 * ASSETS_PATH; `pnpm build` fails when one is missing (see packages/build's checkPublicAssets).
 * Keep this module free of imports but Node's: the build reads it.
 */
export const PUBLIC_ASSETS = ['crypto-pay.css', 'crypto-pay.js'] as const;
export type PublicAsset = (typeof PUBLIC_ASSETS)[number];

export const ASSETS_PATH = '/assets/crypto';

/** `..` of this module is the project under tsx (src/) and in the bundle (dist/) alike. */
export const PUBLIC_DIR = join(__dirname, '..', 'public');

export const assetUrl = (file: PublicAsset): string => `${ASSETS_PATH}/${file}`;

/**
 * The fiat page's stylesheet, which this page loads first so the two pages look alike from one
 * copy: it lives in services/invoicing/public (listed, and checked by the build, in invoicing's
 * src/assets.ts), which the build's runtime tree always holds. Served at SHARED_ASSETS_PATH.
 */
export const SHARED_ASSETS = ['pay.css'] as const;
export const SHARED_ASSETS_PATH = '/assets/crypto/shared';
export const SHARED_DIR = join(__dirname, '..', '..', 'invoicing', 'public');
export const sharedAssetUrl = (file: (typeof SHARED_ASSETS)[number]): string => `${SHARED_ASSETS_PATH}/${file}`;
