import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildLibrary, workspaceProjects } from '../../../scripts/build';

export interface PackedInstall {
  /** The plain Node project (a package.json and node_modules/, nothing else). */
  project: string;
  /** Where the package was unpacked: node_modules/<name>. */
  installed: string;
  /** Removes the project and the tarball. */
  remove: () => void;
}

/**
 * A published library as a merchant gets it: built (scripts/build.ts), packed with `pnpm pack`
 * (so only what `files` publishes), and unpacked into the node_modules of a new plain Node
 * project, beside `links`: packages the library's example needs (express, @types/node), linked
 * from `packageDir`'s own node_modules or the workspace root's. Nothing else is installed there.
 */
export async function installPackedLibrary(packageDir: string, links: string[] = []): Promise<PackedInstall> {
  const project = workspaceProjects().find((p) => p.dir === packageDir);
  if (!project) throw new Error(`${packageDir} is not a workspace project`);
  await buildLibrary(project);
  const root = mkdtempSync(path.join(tmpdir(), `pay-packed-${project.folder}-`));
  const merchant = path.join(root, 'merchant');
  execFileSync('pnpm', ['pack', '--pack-destination', root], { cwd: packageDir, stdio: 'pipe' });
  const { name, version } = JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as { name: string; version: string };
  const installed = path.join(merchant, 'node_modules', ...name.split('/'));
  mkdirSync(installed, { recursive: true });
  execFileSync('tar', ['-xzf', path.join(root, `${name.replace(/^@/, '').replace('/', '-')}-${version}.tgz`), '-C', installed, '--strip-components=1']);
  for (const link of links) {
    // From the package's own node_modules, else the workspace root's (@types/node).
    const from = [packageDir, path.join(__dirname, '..', '..', '..')].map((dir) => path.join(dir, 'node_modules', link)).find((p) => existsSync(p));
    if (!from) throw new Error(`${link} is installed neither in ${packageDir} nor in the workspace root`);
    mkdirSync(path.dirname(path.join(merchant, 'node_modules', link)), { recursive: true });
    symlinkSync(realpathSync(from), path.join(merchant, 'node_modules', link));
  }
  writeFileSync(path.join(merchant, 'package.json'), JSON.stringify({ name: 'merchant', private: true }));
  return { project: merchant, installed, remove: () => rmSync(root, { recursive: true, force: true }) };
}

/**
 * Type-checks files of a merchant's project as its own TypeScript would (strict, NodeNext:
 * `.mts` as ESM, `.cts` as CommonJS; ES2023, no DOM) against what is installed there: the diagnostics, and
 * which installed declaration files of `packageName` were read (so a test knows they were).
 */
export async function typeCheckIn(project: string, files: string[], packageName: string, types: string[] = []): Promise<{ diagnostics: string[]; declarations: string[] }> {
  const ts = await import('typescript');
  const program = ts.createProgram(
    files.map((f) => path.join(project, f)),
    {
      strict: true,
      noEmit: true,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      lib: ['lib.es2023.d.ts'],
      // Only what the project installed: `node` for @types/node linked into it.
      types,
    },
  );
  const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => `${d.file ? path.relative(project, d.file.fileName) : ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
  const declarations = program
    .getSourceFiles()
    .map((f) => path.relative(project, f.fileName))
    .filter((f) => f.startsWith(path.join('node_modules', ...packageName.split('/'))));
  return { diagnostics, declarations: declarations.sort() };
}

/**
 * The first `lang` code block under a README's `## heading` (before the next `## `): the
 * example a published package's test runs as-is, so the README cannot drift from it.
 */
export function readmeCodeBlock(readmePath: string, heading: string, lang: string): string {
  const readme = readFileSync(readmePath, 'utf8');
  const start = readme.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`${readmePath} has no "## ${heading}" section`);
  const end = readme.indexOf('\n## ', start + 1);
  const block = new RegExp(`\\n\`\`\`${lang}\\n([\\s\\S]*?)\`\`\`\\n`).exec(readme.slice(start, end < 0 ? undefined : end));
  if (!block) throw new Error(`${readmePath}: no \`\`\`${lang} block under "## ${heading}"`);
  return block[1]!;
}
