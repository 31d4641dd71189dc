import { join } from 'node:path';

/**
 * Every file the service's pages load, relative to `services/invoicing/public/`, served at
 * ASSETS_PATH. Pages name them through `assetUrl`, whose argument is typed by this list, and
 * `pnpm build` fails when a listed file is missing, so no page of the built service can
 * reference an asset that answers 404. Keep this module free of imports but Node's: the
 * build reads it.
 */
export const PUBLIC_ASSETS = ['pay.css', 'pay.js', 'kyc.css', 'kyc.js', 'console.css', 'console.js'] as const;
export type PublicAsset = (typeof PUBLIC_ASSETS)[number];

export const ASSETS_PATH = '/assets/invoicing';

/**
 * Where the files are at run time: `..` of this module is the project under tsx (src/) and
 * in the bundle (dist/main.js) alike, and the image keeps `public/` beside `dist/`.
 */
export const PUBLIC_DIR = join(__dirname, '..', 'public');

export const assetUrl = (file: PublicAsset): string => `${ASSETS_PATH}/${file}`;
