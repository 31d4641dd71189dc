import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

/** Test outputs kept for reading after a run (gitignored), at the repository's root. */
export const ARTEFACTS = join(__dirname, '..', '..', '..', 'artefacts');

/**
 * `artefacts/<name>/`, made if absent: a test names its folder, never its own depth in the tree
 * (a file moved to another folder keeps writing to the same place).
 */
export function artefactsDir(name: string): string {
  const dir = join(ARTEFACTS, name);
  mkdirSync(dir, { recursive: true });
  return dir;
}
