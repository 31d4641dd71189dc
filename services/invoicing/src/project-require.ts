import { createRequire } from 'node:module';
import { join } from 'node:path';

/**
 * Resolves files of this project's dependencies (language data, an ESM entry to import in a
 * worker thread) as its own code would. This file sits directly in src/, at the depth of the
 * bundle in dist/, so `..` is the project under tsx and in the bundle alike (as for PUBLIC_DIR).
 */
export const PROJECT_MANIFEST = join(__dirname, '..', 'package.json');
export const projectRequire = createRequire(PROJECT_MANIFEST);
