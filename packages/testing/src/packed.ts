import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { workspaceProjects } from '@pay/build';

const ROOT = path.join(__dirname, '..', '..', '..');

export interface PackedInstall {
  /** The plain Node project (a package.json and node_modules/, nothing else). */
  project: string;
  /** Where npm installed the package: node_modules/<name>. */
  installed: string;
  /** Removes the project and the tarball. */
  remove: () => void;
}

/** The README's install steps: what runs in the platform's checkout, and in the merchant's project. */
export function installSteps(readmePath: string): { checkout: string[]; project: string[] } {
  const block = readmeCodeBlock(readmePath, 'Install', 'sh');
  const at = block.indexOf('# in your project\n');
  if (!block.startsWith('# in the platform\'s checkout\n') || at < 0) {
    throw new Error(`${readmePath}: the "## Install" sh block must have "# in the platform's checkout" then "# in your project" steps`);
  }
  const commands = (text: string) => text.split('\n').map((l) => l.replace(/\s+#.*$/, '').trim()).filter((l) => l && !l.startsWith('#'));
  return { checkout: commands(block.slice(0, at)), project: commands(block.slice(at)) };
}

/**
 * A published library as a merchant gets it, by its README's "## Install" steps run as
 * written: in the checkout (`pnpm build <it>`, then `pnpm pack` in its folder, or `npm pack`
 * in its place when `packer` says so), then `npm install <tarball>` in a new plain Node project
 * (offline: the tarball must hold all it needs). Beside it only `links`: packages the
 * library's example needs (express, @types/node), linked from `packageDir`'s own node_modules
 * or the workspace root's.
 */
export async function installPackedLibrary(packageDir: string, links: string[] = [], packer: 'pnpm' | 'npm' = 'pnpm'): Promise<PackedInstall> {
  const project = workspaceProjects().find((p) => p.dir === packageDir);
  if (!project) throw new Error(`${packageDir} is not a workspace project`);
  const steps = installSteps(path.join(packageDir, 'README.md'));
  const { name, version } = JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as { name: string; version: string };
  const tarball = path.join(packageDir, `${name.replace(/^@/, '').replace('/', '-')}-${version}.tgz`);
  const root = mkdtempSync(path.join(tmpdir(), `pay-packed-${project.folder}-`));
  const merchant = path.join(root, 'merchant');
  mkdirSync(merchant);
  writeFileSync(path.join(merchant, 'package.json'), JSON.stringify({ name: 'merchant', private: true }));
  const sh = (commands: string[], cwd: string) => execFileSync('bash', ['-euo', 'pipefail', '-c', commands.join('\n')], { cwd, stdio: 'pipe', env: { ...process.env, npm_config_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false' } });
  try {
    rmSync(tarball, { force: true });
    sh(steps.checkout.map((c) => (packer === 'npm' ? c.replace(/\bpnpm pack\b/, 'npm pack') : c)), ROOT);
    if (!existsSync(tarball)) throw new Error(`the README's steps did not write ${path.relative(ROOT, tarball)}`);
    sh(steps.project.map((c) => c.replaceAll('/path/to/checkout', ROOT)), merchant);
  } finally {
    rmSync(tarball, { force: true });
  }
  const installed = path.join(merchant, 'node_modules', ...name.split('/'));
  for (const link of links) {
    // From the package's own node_modules, else the workspace root's (@types/node).
    const from = [packageDir, ROOT].map((dir) => path.join(dir, 'node_modules', link)).find((p) => existsSync(p));
    if (!from) throw new Error(`${link} is installed neither in ${packageDir} nor in the workspace root`);
    mkdirSync(path.dirname(path.join(merchant, 'node_modules', link)), { recursive: true });
    symlinkSync(realpathSync(from), path.join(merchant, 'node_modules', link));
  }
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
