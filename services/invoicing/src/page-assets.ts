import { join } from 'node:path';

/** The URL path of the hosted pages' own CSS and JS (payment and KYC pages share pay.css). */
export const ASSETS_PATH = '/assets/invoicing';
/** Their files: `public/` beside `src/` under tsx, beside `dist/` in the bundle. */
export const PUBLIC_DIR = join(__dirname, '..', 'public');
