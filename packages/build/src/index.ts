/**
 * The build behind `pnpm build`: one CommonJS bundle per entry point of the workspace, run by plain `node`.
 *
 * - Entry points are found, not listed, in the projects of pnpm-workspace.yaml: `src/main.ts`
 *   of a service (`services/*`) is its process (`dist/main.js`), `src/cli.ts` of any project a
 *   command-line tool (`dist/cli.js`). A new service is built without touching this file.
 * - Workspace packages (`@pay/*`, consumed as TypeScript source) are inlined, so a process
 *   reads one file of our code instead of a hundred, and needs no TypeScript at run time.
 * - Everything from node_modules stays external and is resolved at run time from the
 *   workspace project that imports it, exactly as under tsx: @pay/http's `express` is found through
 *   packages/http/node_modules, whatever service it is bundled into. So the bundles run in
 *   the checkout (scripts/stack.sh) and in the image, whose runtime stage keeps each
 *   project's manifest and production node_modules (infra/Dockerfile).
 * - The Prisma query compiler is written beside the bundle as a binary `.wasm` and read from
 *   there, instead of importing @prisma/client's 4.5 MB base64 JavaScript copy of it
 *   (about 20 MB less resident memory per process).
 *
 * - A project published for merchants (its package.json `main` is in `dist/`: packages/client,
 *   packages/webhook-receiver) is a library, not a process: `src/index.ts` becomes
 *   `dist/index.js` (CommonJS), `dist/index.mjs` (ESM) and `dist/index.d.ts`/`index.d.mts`,
 *   with nothing from node_modules: it must have no runtime dependencies (Node's builtins only).
 *   Workspace tests keep importing its source.
 *
 * `pnpm build` runs it through scripts/build.ts; @pay/testing builds the processes it spawns
 * with it. A package, so that packages never import scripts (.dependency-cruiser.cjs).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, cpSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import path from 'node:path';
import { build, type Plugin } from 'esbuild';

/** The workspace's root (this file is packages/build/src/index.ts). */
export const ROOT = path.resolve(__dirname, '..', '..', '..');

/**
 * Which files are entry points: a service's `src/main.ts` (its process; packages/runtime has a
 * main.ts too, a library module) and any project's `src/cli.ts` (a tool, e.g. migrations).
 */
function entryNamesOf(project: Project): string[] {
  return path.basename(path.dirname(project.dir)) === 'services' ? ['main', 'cli'] : ['cli'];
}

export interface Project {
  /** Absolute folder, e.g. /repo/services/crypto. */
  dir: string;
  /** Folder name, what the CLI takes, e.g. `crypto`. */
  folder: string;
  /** Package name, e.g. `@pay/crypto`. */
  name: string;
}

export interface Entry {
  project: Project;
  /** Absolute path of the TypeScript entry, e.g. …/services/crypto/src/main.ts. */
  source: string;
  /** Bundle file name, e.g. `main.js`. */
  outName: string;
}

/** The `packages:` globs of pnpm-workspace.yaml: `dir/*` or plain folders, as this repo uses. */
function workspaceGlobs(root: string): string[] {
  const lines = readFileSync(path.join(root, 'pnpm-workspace.yaml'), 'utf8').split('\n');
  const start = lines.findIndex((l) => /^packages:\s*$/.test(l));
  if (start < 0) throw new Error('pnpm-workspace.yaml has no packages: list');
  const globs: string[] = [];
  for (const line of lines.slice(start + 1)) {
    const item = /^\s+-\s+["']?([^"'#]+?)["']?\s*(#.*)?$/.exec(line);
    if (item) globs.push(item[1]!);
    else if (/^\S/.test(line)) break;
  }
  return globs;
}

/** Every workspace project with a package.json, from the workspace's own globs. */
export function workspaceProjects(root = ROOT): Project[] {
  const dirs = workspaceGlobs(root).flatMap((glob) => {
    if (glob.startsWith('!')) throw new Error(`pnpm-workspace.yaml: exclusions (${glob}) are not supported by @pay/build`);
    if (glob.endsWith('/*')) {
      const parent = path.join(root, glob.slice(0, -2));
      if (glob.slice(0, -2).includes('*')) throw new Error(`pnpm-workspace.yaml: only "dir/*" globs are supported (${glob})`);
      return existsSync(parent) ? readdirSync(parent).map((name) => path.join(parent, name)) : [];
    }
    if (glob.includes('*')) throw new Error(`pnpm-workspace.yaml: only "dir/*" globs are supported (${glob})`);
    return [path.join(root, glob)];
  });
  return dirs
    .filter((dir) => existsSync(path.join(dir, 'package.json')))
    .sort()
    .map((dir) => ({ dir, folder: path.basename(dir), name: (JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name: string }).name }));
}

export function entryPoints(projects = workspaceProjects()): Entry[] {
  return projects.flatMap((project) =>
    entryNamesOf(project).map((name) => ({ project, source: path.join(project.dir, 'src', `${name}.ts`), outName: `${name}.js` })).filter((e) => existsSync(e.source)),
  );
}

const PRISMA_WASM = /^@prisma\/client\/runtime\/(query_compiler_\w+_bg\.\w+)\.wasm-base64\.js$/;
const BUILTINS = new Set(builtinModules);

function isBuiltin(spec: string): boolean {
  return spec.startsWith('node:') || BUILTINS.has(spec.split('/')[0]!);
}

/** `@scope/name/sub` → `@scope/name`; `name/sub` → `name`. */
function packageOf(spec: string): string {
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/**
 * Inlines the workspace packages; every other bare import becomes a small module that
 * resolves it at run time from the project that imported it (see the file comment).
 */
function dependencyPlugin(projects: Project[], outDir: string): Plugin {
  const workspaceNames = new Set(projects.map((p) => p.name));
  const projectOf = (file: string) => projects.find((p) => file.startsWith(p.dir + path.sep));
  return {
    name: 'pay-dependencies',
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, (args) => {
        if (args.namespace !== 'file') return { path: args.path, external: true };
        if (isBuiltin(args.path)) return { path: args.path, external: true };
        if (workspaceNames.has(packageOf(args.path))) return undefined;
        const project = projectOf(args.importer);
        if (!project) throw new Error(`${args.importer} is outside every workspace project`);
        if (args.kind === 'require-resolve') {
          // require.resolve() stays as written, so it resolves from the bundle's folder: right
          // only when the bundle lives inside the project that calls it.
          if (!outDir.startsWith(project.dir + path.sep)) {
            throw new Error(`${path.relative(ROOT, args.importer)}: require.resolve('${args.path}') cannot work from a bundle outside ${path.relative(ROOT, project.dir)}`);
          }
          return { path: args.path, external: true };
        }
        const wasm = PRISMA_WASM.exec(args.path);
        const from = `${args.path} from ${path.relative(ROOT, project.dir)}`;
        if (wasm) return { path: from, namespace: 'prisma-wasm', pluginData: { projectDir: project.dir, name: wasm[1] } };
        // A package none of whose imports is used is not loaded at all (e.g. @pay/db's Prisma
        // adapter in a process without Prisma). A bare `import 'x'` kept for its side effects
        // would be dropped too, so esbuild's warning about it fails the build.
        return { path: from, namespace: 'dependency', sideEffects: false, pluginData: { projectDir: project.dir } };
      });
      b.onLoad({ filter: /.*/, namespace: 'dependency' }, (args) => {
        const { projectDir } = args.pluginData as { projectDir: string };
        const spec = args.path.split(' from ')[0]!;
        const manifest = path.relative(outDir, path.join(projectDir, 'package.json'));
        return {
          contents: `module.exports = require("node:module").createRequire(require("node:path").join(__dirname, ${JSON.stringify(manifest)}))(${JSON.stringify(spec)});`,
          loader: 'js',
        };
      });
      b.onLoad({ filter: /.*/, namespace: 'prisma-wasm' }, (args) => {
        const { projectDir, name } = args.pluginData as { projectDir: string; name: string };
        const spec = args.path.split(' from ')[0]!;
        const { wasm } = createRequire(path.join(projectDir, 'package.json'))(spec) as { wasm: string };
        mkdirSync(outDir, { recursive: true });
        writeFileSync(path.join(outDir, `${name}.wasm`), Buffer.from(wasm, 'base64'));
        // The generated client decodes base64 itself; it is read once per process.
        return {
          contents: `Object.defineProperty(exports, "wasm", { enumerable: true, get: () => require("node:fs").readFileSync(require("node:path").join(__dirname, ${JSON.stringify(`${name}.wasm`)})).toString("base64") });`,
          loader: 'js',
        };
      });
    },
  };
}

export interface BuiltEntry {
  entry: Entry;
  outFile: string;
  bytes: number;
  ms: number;
  /** Packages from node_modules the bundle can load (at start or later). */
  externals: string[];
  /** Workspace projects whose code the bundle holds; their node_modules serve it at run time. */
  projects: Project[];
  /** Our source files the bundle holds (absolute paths): what the process loads of the workspace. */
  sources: string[];
}

/** Bundles one entry into `outDir` (default: the project's dist/). */
export async function buildEntry(entry: Entry, options: { outDir?: string; projects?: Project[] } = {}): Promise<BuiltEntry> {
  const started = Date.now();
  const outDir = path.resolve(options.outDir ?? path.join(entry.project.dir, 'dist'));
  const outFile = path.join(outDir, entry.outName);
  const projects = options.projects ?? workspaceProjects();
  const result = await build({
    entryPoints: [entry.source],
    outfile: outFile,
    bundle: true,
    platform: 'node',
    target: 'node24',
    format: 'cjs',
    // Not keepNames: it wraps every function and class the code defines in a `__name(...)`
    // call, run again each time a closure is made (about 1% of a v2 create's CPU). The one name
    // a process reads is a class's (pino logs `err.type` from the constructor's name), which
    // the bundler changes only when two top-level names collide: renamedClasses refuses that.
    keepNames: false,
    sourcemap: 'linked',
    sourcesContent: false,
    metafile: true,
    logLevel: 'silent',
    plugins: [dependencyPlugin(projects, outDir)],
  });
  if (result.warnings.length > 0) {
    const hint = result.warnings.some((w) => w.text.includes('no side effects'))
      ? ' (a package is loaded only for what the code uses from it, so an import kept for its side effects alone would be lost: use something it exports)'
      : '';
    throw new Error(`${path.relative(ROOT, entry.source)}: ${result.warnings.map((w) => w.text).join('; ')}${hint}`);
  }
  const inputs = Object.values(result.metafile.outputs).flatMap((output) => Object.keys(output.inputs));
  const files = inputs.filter((input) => !input.includes(':')).map((input) => path.resolve(input));
  const renamed = renamedClasses(readFileSync(outFile, 'utf8'), files);
  if (renamed.length > 0) {
    throw new Error(
      `${path.relative(ROOT, entry.source)}: the bundle renames ${renamed.join(', ')}: two top-level names alike in its modules. ` +
        "The class's instances would log another err.type (constructor.name); rename one of the two.",
    );
  }
  const bundled = projects.filter((p) => p === entry.project || files.some((f) => f.startsWith(p.dir + path.sep)));
  return { entry, outFile, bytes: statSync(outFile).size, ms: Date.now() - started, externals: externalsOf(inputs), projects: bundled, sources: files };
}

const CLASS_NAMES = /\bclass\s+([A-Za-z_$][\w$]*)|\b([A-Za-z_$][\w$]*)\s*=\s*class\b/g;

/**
 * Classes the bundle names that none of its input files does: the bundler renamed them
 * (`ApiError` to `ApiError2`) because another module has a top-level name alike. Without
 * keepNames such a class's `name` is the new one.
 */
export function renamedClasses(bundle: string, inputFiles: string[]): string[] {
  const declared = new Set<string>();
  for (const file of inputFiles) for (const m of readFileSync(file, 'utf8').matchAll(CLASS_NAMES)) declared.add(m[1] ?? m[2]!);
  const named = new Set([...bundle.matchAll(CLASS_NAMES)].map((m) => m[1] ?? m[2]!));
  return [...named].filter((name) => !declared.has(name)).sort();
}

/** From the output's own inputs: a package whose import was dropped as unused is not listed. */
function externalsOf(inputs: string[]): string[] {
  const names = inputs
    .filter((input) => input.startsWith('dependency:') || input.startsWith('prisma-wasm:'))
    .map((input) => packageOf(input.slice(input.indexOf(':') + 1).split(' from ')[0]!));
  return [...new Set(names)].sort();
}

/**
 * The NODE_OPTIONS the image runs every process with (infra/Dockerfile's `ENV NODE_OPTIONS=`
 * line, V8's heap settings), so that a bundle started outside the image (the bench, the tests
 * of built bundles, scripts/stack.sh) runs as it does in production. Throws if the line is gone.
 */
export function imageNodeOptions(root = ROOT): string {
  const found = /^ENV NODE_OPTIONS="([^"]*)"$/m.exec(readFileSync(path.join(root, 'infra', 'Dockerfile'), 'utf8'));
  if (!found) throw new Error('infra/Dockerfile has no ENV NODE_OPTIONS="..." line');
  return found[1]!;
}

/** Bundles the process of one service (its `src/main.ts`) into `outDir`; tests run the result. */
export async function buildServiceProcess(folder: string, outDir: string): Promise<BuiltEntry> {
  const projects = workspaceProjects();
  const entry = entryPoints(projects).find((e) => e.project.folder === folder && e.outName === 'main.js');
  if (!entry) throw new Error(`no service named ${folder} with a src/main.ts`);
  await checkPublicAssets(entry.project);
  return buildEntry(entry, { outDir, projects });
}

/**
 * Checks that every file a project's pages load is where the process reads it at run time:
 * a project with `src/assets.ts` lists them in its `PUBLIC_ASSETS`, relative to its
 * `PUBLIC_DIR` (a `public/` folder, which the runtime tree copies), and pages can name only
 * those (`assetUrl` takes that list's type). Throws naming each missing file.
 */
export async function checkPublicAssets(project: Project): Promise<string[]> {
  const manifest = path.join(project.dir, 'src', 'assets.ts');
  if (!existsSync(manifest)) return [];
  const { PUBLIC_ASSETS, PUBLIC_DIR } = (await import(manifest)) as { PUBLIC_ASSETS?: readonly string[]; PUBLIC_DIR?: string };
  if (!Array.isArray(PUBLIC_ASSETS) || typeof PUBLIC_DIR !== 'string') throw new Error(`${path.relative(ROOT, manifest)} must export PUBLIC_ASSETS and PUBLIC_DIR`);
  // PUBLIC_DIR as the module computes it from its own folder (src/), which the bundle's dist/ mirrors.
  const missing = PUBLIC_ASSETS.filter((file) => !existsSync(path.join(PUBLIC_DIR, file)));
  if (missing.length > 0) {
    throw new Error(`${path.relative(ROOT, manifest)} lists assets that are not in ${path.relative(ROOT, PUBLIC_DIR)}/: ${missing.join(', ')}`);
  }
  return PUBLIC_ASSETS.map((file) => path.join(PUBLIC_DIR, file));
}

/** Builds the entries of the named project folders (default: every project), cleaning each dist/ first. */
export async function buildWorkspace(folders: string[] = [], root = ROOT): Promise<BuiltEntry[]> {
  const projects = workspaceProjects(root);
  const unknown = folders.filter((f) => !projects.some((p) => p.folder === f));
  if (unknown.length > 0) throw new Error(`no workspace project named ${unknown.join(', ')}`);
  const entries = entryPoints(projects).filter((e) => folders.length === 0 || folders.includes(e.project.folder));
  await Promise.all([...new Set(entries.map((e) => e.project))].map(checkPublicAssets));
  for (const dir of new Set(entries.map((e) => e.project.dir))) rmSync(path.join(dir, 'dist'), { recursive: true, force: true });
  return Promise.all(entries.map((entry) => buildEntry(entry, { projects })));
}

/**
 * What the image's runtime stage holds, copied into `out`: the root manifest, lockfile and
 * workspace file (for `pnpm install --prod` there, and for packages/migrate to find the
 * root); of each project some bundle holds, its package.json (so that install gives it its
 * node_modules) and dist/; and every project's prisma/ (schema and migrations, which the
 * migration tool applies). No sources, no test-only projects.
 */
export function copyRuntimeTree(out: string, built: BuiltEntry[], root = ROOT): void {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  for (const file of ['package.json', 'pnpm-lock.yaml', 'pnpm-workspace.yaml']) cpSync(path.join(root, file), path.join(out, file));
  const needed = new Set(built.flatMap((b) => b.projects.map((p) => p.dir)));
  for (const project of workspaceProjects(root)) {
    const copy = (sub: string) => {
      const from = path.join(project.dir, sub);
      if (existsSync(from)) cpSync(from, path.join(out, path.relative(root, project.dir), sub), { recursive: true });
    };
    if (needed.has(project.dir)) ['package.json', 'dist'].forEach(copy);
    // `public/`: static page assets (CSS, JS), read at run time from `<service>/public`
    // (through each service's src/assets.ts; one service's pages may use another's files).
    copy('public');
    copy('prisma');
  }
}

/**
 * A project whose `main` points into `dist/`: built by buildLibrary. The manifest's own `main`
 * (not `publishConfig.main`, which `npm pack` ignores) is what both `npm pack` and `pnpm pack`
 * publish; no workspace project imports a library by name, so nothing needs its source there.
 */
export function isLibrary(project: Project): boolean {
  const manifest = JSON.parse(readFileSync(path.join(project.dir, 'package.json'), 'utf8')) as { main?: string };
  const main = manifest.main;
  return typeof main === 'string' && path.posix.normalize(main).startsWith('dist/') && existsSync(path.join(project.dir, 'src', 'index.ts'));
}

export interface BuiltLibrary {
  project: Project;
  /** Absolute paths of the files written to the project's dist/. */
  files: string[];
  ms: number;
}

/**
 * Builds a library's `src/index.ts` into its dist/ (cleaned first): CommonJS and ESM bundles
 * for Node 18+, and declarations (one file, so the same text serves both as .d.ts and .d.mts).
 * Anything imported but a Node builtin fails the build: a merchant installs it alone.
 */
export async function buildLibrary(project: Project): Promise<BuiltLibrary> {
  const started = Date.now();
  const source = path.join(project.dir, 'src', 'index.ts');
  const outDir = path.join(project.dir, 'dist');
  rmSync(outDir, { recursive: true, force: true });
  // A library generated from committed files (packages/client: from docs/openapi/) is
  // generated again first, so what is published is what those files say now.
  const generator = path.join(project.dir, 'generate.mjs');
  // A process of its own: it is an ES module, and jest's CommonJS cannot import one.
  if (existsSync(generator)) execFileSync(process.execPath, [generator], { stdio: ['ignore', 'ignore', 'inherit'] });
  const builtinsOnly: Plugin = {
    name: 'builtins-only',
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, (args) => {
        if (isBuiltin(args.path)) return { path: args.path, external: true };
        throw new Error(`${path.relative(ROOT, args.importer)} imports '${args.path}': a published library may use Node's builtins only`);
      });
    },
  };
  for (const [format, outName] of [['cjs', 'index.js'], ['esm', 'index.mjs']] as const) {
    const result = await build({
      entryPoints: [source],
      outfile: path.join(outDir, outName),
      bundle: true,
      platform: 'node',
      target: 'node18',
      format,
      logLevel: 'silent',
      plugins: [builtinsOnly],
    });
    if (result.warnings.length > 0) throw new Error(`${path.relative(ROOT, source)}: ${result.warnings.map((w) => w.text).join('; ')}`);
  }
  const declarations = await libraryDeclarations(source);
  writeFileSync(path.join(outDir, 'index.d.ts'), declarations);
  writeFileSync(path.join(outDir, 'index.d.mts'), declarations);
  const written = ['index.js', 'index.mjs', 'index.d.ts', 'index.d.mts'].map((f) => path.join(outDir, f));
  return { project, files: written, ms: Date.now() - started };
}

/**
 * A library's declarations as one file, so the same text serves require (.d.ts) and import
 * (.d.mts). Each file's come from its source alone (`isolatedDeclarations`: every export is
 * annotated), so no type-checking program slows the build; `pnpm typecheck` checks the types.
 * The entry may re-export a module beside it (`export * from './generated/api'`, the types
 * generated for packages/client): that module's declarations are written in place of the
 * line, and any other import of it is dropped, so the entry must re-export what it uses.
 * typescript is a root devDependency, loaded here only.
 */
async function libraryDeclarations(source: string): Promise<string> {
  const ts = await import('typescript');
  const declare = (file: string) => {
    const declared = ts.transpileDeclaration(readFileSync(file, 'utf8'), {
      fileName: file,
      reportDiagnostics: true,
      compilerOptions: { isolatedDeclarations: true, declaration: true, strict: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS },
    });
    const diagnostics = declared.diagnostics ?? [];
    if (diagnostics.length > 0) {
      const host = { getCanonicalFileName: (f: string) => f, getCurrentDirectory: () => ROOT, getNewLine: () => '\n' };
      throw new Error(`${path.relative(ROOT, file)}: ${ts.formatDiagnostics(diagnostics, host)}`);
    }
    return declared.outputText;
  };
  const reexported = new Set<string>();
  let text = declare(source).replace(/^export \* from ['"](\.[^'"]+)['"];\n/gm, (_line, spec: string) => {
    reexported.add(spec);
    return declare(path.resolve(path.dirname(source), `${spec}.ts`)).replace(/^export \{\};\n/m, '');
  });
  text = text.replace(/^import [^;]+ from ['"](\.[^'"]+)['"];\n/gm, (line, spec: string) => (reexported.has(spec) ? '' : line));
  if (/\bfrom\s+['"]\.|import\(['"]\./.test(text)) {
    throw new Error(`${path.relative(ROOT, source)}: declarations must be one file: keep the library in src/index.ts (or re-export a module beside it with export *)`);
  }
  return text;
}

/** Builds the libraries among the named project folders (default: every project). */
export async function buildLibraries(folders: string[] = [], root = ROOT): Promise<BuiltLibrary[]> {
  const libraries = workspaceProjects(root).filter((p) => (folders.length === 0 || folders.includes(p.folder)) && isLibrary(p));
  return Promise.all(libraries.map((p) => buildLibrary(p)));
}
