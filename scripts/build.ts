/**
 * `pnpm build [project...]` (folder names, e.g. `crypto`; default: all), and
 * `pnpm build --runtime <dir>`, which also copies what the image runs into <dir>.
 * What it does is @pay/build's (packages/build/src/index.ts).
 */
import path from 'node:path';
import { buildLibraries, buildWorkspace, copyRuntimeTree, ROOT } from '@pay/build';

async function cli(argv: string[]): Promise<void> {
  const folders = [...argv];
  const at = folders.indexOf('--runtime');
  const runtimeDir = at >= 0 ? folders.splice(at, 2)[1] : undefined;
  if (at >= 0 && !runtimeDir) throw new Error('--runtime needs a directory');
  const started = Date.now();
  const [built, libraries] = await Promise.all([buildWorkspace(folders), buildLibraries(folders)]);
  for (const b of built) {
    console.log(`${path.relative(ROOT, b.outFile)}  ${(b.bytes / 1024).toFixed(0)} KB  ${b.ms} ms\n  from node_modules: ${b.externals.join(' ')}`);
  }
  for (const l of libraries) {
    console.log(`${path.relative(ROOT, path.join(l.project.dir, 'dist'))}/ (library: ${l.files.map((f) => path.basename(f)).join(', ')})  ${l.ms} ms`);
  }
  if (runtimeDir) {
    copyRuntimeTree(path.resolve(runtimeDir), built);
    console.log(`runtime tree copied to ${runtimeDir}`);
  }
  console.log(`built ${built.length} entries and ${libraries.length} libraries in ${Date.now() - started} ms`);
}

if (require.main === module) {
  cli(process.argv.slice(2)).catch((err: unknown) => {
    console.error(`build failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
}
