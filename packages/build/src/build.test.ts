import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildEntry, buildLibrary, buildWorkspace, copyRuntimeTree, entryPoints, imageNodeOptions, isLibrary, workspaceProjects } from '.';

/** A throwaway workspace: files by path, plus symlinks standing in for pnpm's node_modules links. */
function workspace(files: Record<string, string>, links: Record<string, string> = {}): string {
  const root = mkdtempSync(path.join(tmpdir(), 'pay-build-test-'));
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), content);
  }
  for (const [link, target] of Object.entries(links)) {
    mkdirSync(path.dirname(path.join(root, link)), { recursive: true });
    symlinkSync(path.join(root, target), path.join(root, link));
  }
  return root;
}

const manifest = (name: string) => JSON.stringify({ name, main: 'src/index.ts' });
const pkg = (name: string, body: string) => ({ [`${name}/package.json`]: JSON.stringify({ name: path.basename(name), main: 'index.js' }), [`${name}/index.js`]: body });

/**
 * A library's build runs the TypeScript compiler for its declarations (two passes, CommonJS and
 * ESM): seconds on an idle core, over the default 30 s on this 2-core machine when others load
 * it (CI, fresh-ci 13:45).
 */
const LIBRARY_BUILD_MS = 180_000;

describe('@pay/build', () => {
  const roots: string[] = [];
  afterAll(() => roots.forEach((r) => rmSync(r, { recursive: true, force: true })));

  it('finds every service process and tool from pnpm-workspace.yaml, with no list to keep', () => {
    const root = workspace({
      'pnpm-workspace.yaml': 'packages:\n  - services/*\n  - "packages/*"\nignoredBuiltDependencies:\n  - esbuild\n',
      'services/a/package.json': manifest('@t/a'),
      'services/a/src/main.ts': '',
      'services/b/package.json': manifest('@t/b'),
      'services/b/src/main.ts': '',
      'packages/k/package.json': manifest('@t/k'),
      'packages/k/src/main.ts': '',
      'packages/tool/package.json': manifest('@t/tool'),
      'packages/tool/src/cli.ts': '',
      'packages/notes/README.md': '',
    });
    roots.push(root);
    const found = entryPoints(workspaceProjects(root)).map((e) => `${path.relative(root, e.source)} -> ${e.outName}`);
    // packages/k/src/main.ts is a library module (like @pay/runtime's runMain), not a process.
    expect(found).toEqual(['packages/tool/src/cli.ts -> cli.js', 'services/a/src/main.ts -> main.js', 'services/b/src/main.ts -> main.js']);
  });

  it('inlines workspace packages, resolves their dependencies from where they are declared, and loads none it does not use', async () => {
    const root = workspace(
      {
        'pnpm-workspace.yaml': 'packages:\n  - services/*\n  - packages/*\n',
        'package.json': '{}',
        'pnpm-lock.yaml': '',
        'services/app/package.json': manifest('@t/app'),
        'services/app/src/main.ts': "import { greet } from '@t/lib';\nconsole.log(greet());\n",
        'packages/lib/package.json': manifest('@t/lib'),
        'packages/lib/src/index.ts':
          "import { word } from 'dep';\nimport { heavy } from 'heavy';\nexport const greet = () => `hello ${word}`;\nexport const unused = () => heavy();\n",
        // Only the library declares these, as pnpm installs them: the service cannot see them.
        ...pkg('packages/lib/node_modules/dep', "exports.word = 'from dep';"),
        ...pkg('packages/lib/node_modules/heavy', "console.log('heavy was loaded'); exports.heavy = () => 1;"),
      },
      { 'services/app/node_modules/@t/lib': 'packages/lib' },
    );
    roots.push(root);
    const projects = workspaceProjects(root);
    const [entry] = entryPoints(projects);
    const built = await buildEntry(entry!, { projects });
    expect(built.outFile).toBe(path.join(root, 'services/app/dist/main.js'));
    expect(built.externals).toEqual(['dep']);
    expect(built.projects.map((p) => p.folder).sort()).toEqual(['app', 'lib']);
    // 'heavy' would print as it loads: only `unused` needs it.
    expect(execFileSync(process.execPath, [built.outFile], { encoding: 'utf8' })).toBe('hello from dep\n');

    // The runtime tree holds manifests and bundles of the projects the bundle needs, no sources.
    const out = path.join(root, 'runtime');
    copyRuntimeTree(out, [built], root);
    expect(existsSync(path.join(out, 'services/app/dist/main.js'))).toBe(true);
    expect(existsSync(path.join(out, 'packages/lib/package.json'))).toBe(true);
    expect(existsSync(path.join(out, 'packages/lib/src'))).toBe(false);
  });

  it('refuses a package imported only for its side effects, which the bundle would silently drop', async () => {
    const root = workspace({
      'pnpm-workspace.yaml': 'packages:\n  - services/*\n',
      'services/app/package.json': manifest('@t/app'),
      'services/app/src/main.ts': "import 'polyfill';\n",
      ...pkg('services/app/node_modules/polyfill', 'globalThis.patched = true;'),
    });
    roots.push(root);
    const projects = workspaceProjects(root);
    await expect(buildEntry(entryPoints(projects)[0]!, { projects })).rejects.toThrow(/polyfill[\s\S]*use something it exports/);
  });

  it('refuses a bundle that renames a class (two top-level names alike): its instances would log another err.type', async () => {
    const files = (second: string) => ({
      'pnpm-workspace.yaml': 'packages:\n  - services/*\n',
      'services/app/package.json': manifest('@t/app'),
      'services/app/src/main.ts': "import { PayError } from './a';\nimport { make } from './b';\nconsole.log(new PayError().constructor.name, make().constructor.name);\n",
      'services/app/src/a.ts': 'export class PayError extends Error {}\n',
      'services/app/src/b.ts': `class ${second} extends Error {}\nexport const make = () => new ${second}();\n`,
    });
    const clash = workspace(files('PayError'));
    const apart = workspace(files('OtherError'));
    roots.push(clash, apart);
    await expect(buildWorkspace([], clash)).rejects.toThrow(/src\/main\.ts: the bundle renames PayError2: two top-level names alike/);
    const [built] = await buildWorkspace([], apart);
    expect(execFileSync(process.execPath, [built!.outFile], { encoding: 'utf8' })).toBe('PayError OtherError\n');
  });

  it('fails when a page asset the service lists is not in its public/ folder, naming it', async () => {
    const files = {
      'pnpm-workspace.yaml': 'packages:\n  - services/*\n',
      'services/app/package.json': manifest('@t/app'),
      'services/app/src/main.ts': "import { PUBLIC_ASSETS } from './assets';\nconsole.log(PUBLIC_ASSETS.length);\n",
      'services/app/src/assets.ts': "export const PUBLIC_ASSETS = ['app.css', 'app.js'] as const;\nexport const PUBLIC_DIR = require('node:path').join(__dirname, '..', 'public');\n",
      'services/app/public/app.css': 'body{}',
    };
    const broken = workspace(files);
    const whole = workspace({ ...files, 'services/app/public/app.js': '' });
    roots.push(broken, whole);
    await expect(buildWorkspace([], broken)).rejects.toThrow(/services\/app\/src\/assets\.ts lists assets that are not in .*services\/app\/public\/: app\.js$/);
    expect((await buildWorkspace([], whole)).map((b) => path.relative(whole, b.outFile))).toEqual(['services/app/dist/main.js']);
  });

  it('builds every library of this workspace: the SDK and the webhook receiver, whose main is in dist/ for npm pack and pnpm pack alike', () => {
    expect(workspaceProjects().filter(isLibrary).map((p) => p.folder)).toEqual(['client', 'webhook-receiver']);
  });

  it('builds a library (its main in dist/) as CommonJS, ESM and declarations, with Node builtins only', async () => {
    const root = workspace({
      'pnpm-workspace.yaml': 'packages:\n  - packages/*\n',
      'packages/lib/package.json': JSON.stringify({ name: '@t/lib', main: './dist/index.js' }),
      'packages/lib/src/index.ts': "import { createHash } from 'node:crypto';\nexport const sha = (s: string): string => createHash('sha256').update(s).digest('hex');\n",
      'packages/internal/package.json': manifest('@t/internal'),
      'packages/internal/src/index.ts': 'export const x = 1;\n',
      'packages/bad/package.json': JSON.stringify({ name: '@t/bad', main: 'dist/index.js' }),
      'packages/bad/src/index.ts': "import dep from 'dep';\nexport const x = dep;\n",
    });
    roots.push(root);
    const projects = workspaceProjects(root);
    expect(projects.filter(isLibrary).map((p) => p.folder)).toEqual(['bad', 'lib']);
    const built = await buildLibrary(projects.find((p) => p.folder === 'lib')!);
    const dist = path.join(root, 'packages/lib/dist');
    expect(built.files).toEqual(['index.js', 'index.mjs', 'index.d.ts', 'index.d.mts'].map((f) => path.join(dist, f)));
    expect(execFileSync(process.execPath, ['-e', `console.log(require(${JSON.stringify(path.join(dist, 'index.js'))}).sha('a'))`], { encoding: 'utf8' })).toMatch(/^ca978112/);
    const esm = `import { sha } from ${JSON.stringify(`file://${path.join(dist, 'index.mjs')}`)}; console.log(sha('a'));`;
    expect(execFileSync(process.execPath, ['--input-type=module', '-e', esm], { encoding: 'utf8' })).toMatch(/^ca978112/);
    expect(readFileSync(path.join(dist, 'index.d.ts'), 'utf8')).toContain('export declare const sha: (s: string) => string;');
    await expect(buildLibrary(projects.find((p) => p.folder === 'bad')!)).rejects.toThrow(/imports 'dep': a published library may use Node's builtins only/);
  }, LIBRARY_BUILD_MS);

  it("runs a library's generate.mjs first, and writes a module the entry re-exports into its one declaration file", async () => {
    const root = workspace({
      'pnpm-workspace.yaml': 'packages:\n  - packages/*\n',
      'packages/gen/package.json': JSON.stringify({ name: '@t/gen', main: './dist/index.js' }),
      // Generated at build time, as packages/client's types are from the OpenAPI documents.
      'packages/gen/generate.mjs':
        "import { mkdirSync, writeFileSync } from 'node:fs';\nmkdirSync(new URL('./src/generated/', import.meta.url), { recursive: true });\n" +
        "writeFileSync(new URL('./src/generated/api.ts', import.meta.url), 'export interface Spec { path: string }\\nexport const SPEC: Spec = { path: \"/x\" };\\n');\n",
      'packages/gen/src/index.ts': "import { SPEC, type Spec } from './generated/api';\nexport * from './generated/api';\nexport const pathOf = (s: Spec = SPEC): string => s.path;\n",
    });
    roots.push(root);
    await buildLibrary(workspaceProjects(root).find((p) => p.folder === 'gen')!);
    const dist = path.join(root, 'packages/gen/dist');
    const declarations = readFileSync(path.join(dist, 'index.d.ts'), 'utf8');
    expect(declarations).toContain('export interface Spec');
    expect(declarations).toContain('export declare const SPEC: Spec;');
    expect(declarations).toContain('export declare const pathOf: (s?: Spec) => string;');
    expect(declarations).not.toMatch(/from '\.\//);
    const run = `const m = require(${JSON.stringify(path.join(dist, 'index.js'))}); console.log(m.pathOf(), m.SPEC.path)`;
    expect(execFileSync(process.execPath, ['-e', run], { encoding: 'utf8' })).toBe('/x /x\n');
  }, LIBRARY_BUILD_MS);
});

describe('imageNodeOptions', () => {
  it('reads the V8 settings the image runs every process with, and says so when the line is gone', () => {
    expect(imageNodeOptions()).toMatch(/^--max-semi-space-size=\d+$/);
    const bare = workspace({ 'infra/Dockerfile': 'FROM node:24\nENV NODE_ENV=production\n' });
    try {
      expect(() => imageNodeOptions(bare)).toThrow(/infra\/Dockerfile has no ENV NODE_OPTIONS/);
    } finally {
      rmSync(bare, { recursive: true, force: true });
    }
  });

  it('is what scripts/stack.sh reads from the same line', () => {
    const read = execFileSync('sed', ['-n', 's/^ENV NODE_OPTIONS="\\(.*\\)"$/\\1/p', 'infra/Dockerfile'], { cwd: path.join(__dirname, '..', '..', '..'), encoding: 'utf8' }).trim();
    expect(read).toBe(imageNodeOptions());
    expect(readFileSync(path.join(__dirname, '..', '..', '..', 'scripts', 'stack.sh'), 'utf8')).toContain(`s/^ENV NODE_OPTIONS="\\(.*\\)"$/\\1/p`);
  });
});
