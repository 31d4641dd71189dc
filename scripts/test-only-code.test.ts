import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { workspaceProjects } from '@pay/build';

/**
 * Test support lives in each project's `test/` folder, beside `src/`: what ships is built from
 * `src/` (@pay/build bundles from `src/main.ts`), so production code must never reach
 * `test/`, nor a package the project only declares for its tests (devDependencies).
 * Tests (`*.test.ts`) may import both.
 */
const ROOT = path.resolve(__dirname, '..');

function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' || entry.name === 'node_modules' ? [] : sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** Every module specifier a file names: static and dynamic imports, `require`, `export … from`. */
export function specifiersOf(text: string): string[] {
  const found: string[] = [];
  const pattern = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+)(['"])([^'"\n]+)\1/gm;
  for (const match of text.matchAll(pattern)) found.push(match[2]!);
  return found;
}

function resolvesInto(file: string, specifier: string, folder: string): boolean {
  if (!specifier.startsWith('.')) return false;
  const target = path.resolve(path.dirname(file), specifier);
  return target === folder || target.startsWith(folder + path.sep);
}

/** The package a bare specifier names: `@scope/name/sub` → `@scope/name`, `name/sub` → `name`. */
const packageOf = (specifier: string) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');

/** The problems of one project: each import of non-test source that reaches test-only code. */
export function testOnlyImports(projectDir: string): string[] {
  const manifest = JSON.parse(readFileSync(path.join(projectDir, 'package.json'), 'utf8'));
  const runtime = new Set([...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {})]);
  const devOnly = Object.keys(manifest.devDependencies ?? {}).filter((name) => !runtime.has(name));
  const testDir = path.join(projectDir, 'test');
  return sourceFiles(path.join(projectDir, 'src')).flatMap((file) =>
    specifiersOf(readFileSync(file, 'utf8')).flatMap((specifier) => {
      const where = path.relative(ROOT, file);
      if (resolvesInto(file, specifier, testDir)) return [`${where} imports ${specifier}: test support is for tests only`];
      if (devOnly.includes(packageOf(specifier))) return [`${where} imports ${specifier}, a devDependency of ${manifest.name}: only tests may`];
      return [];
    }),
  );
}

describe('test-only code stays out of what ships', () => {
  const projects = workspaceProjects(ROOT).filter((p) => statSync(path.join(p.dir, 'src')).isDirectory());

  it('finds the projects and their sources', () => {
    expect(projects.map((p) => path.relative(ROOT, p.dir))).toEqual(expect.arrayContaining(['services/invoicing', 'services/crypto', 'packages/http']));
  });

  it('no non-test source imports a test/ folder or a devDependency', () => {
    expect(projects.flatMap((p) => testOnlyImports(p.dir))).toEqual([]);
  });

  it('no test support is left in src/', () => {
    const stray = projects.flatMap((p) => sourceFiles(path.join(p.dir, 'src'))).filter((file) => /(^|[-/])(test-support|test-smtp|test-faces|test-fixtures|fixtures)\.ts$/.test(file));
    expect(stray.map((file) => path.relative(ROOT, file))).toEqual([]);
  });

  it('flags a source file reaching test/ or a devDependency, and lets tests do both', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'pay-test-only-'));
    try {
      const write = (file: string, text: string) => {
        mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
        writeFileSync(path.join(dir, file), text);
      };
      write('package.json', JSON.stringify({ name: '@t/p', dependencies: { pg: '1' }, devDependencies: { supertest: '1', pg: '1' } }));
      write('test/support.ts', 'export const x = 1;');
      write('src/app.ts', "import { x } from '../test/support';\nimport request from 'supertest';\nimport { Pool } from 'pg';");
      write('src/app.test.ts', "import { x } from '../test/support';\nimport request from 'supertest';");
      expect(testOnlyImports(dir)).toEqual([
        expect.stringMatching(/src\/app\.ts imports \.\.\/test\/support: test support is for tests only$/),
        expect.stringMatching(/src\/app\.ts imports supertest, a devDependency of @t\/p: only tests may$/),
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads the import forms production code uses', () => {
    const text = "import a from './a';\nimport type { B } from \"../b\";\nexport { c } from './c';\nimport './side';\nconst d = require('d/x');\nconst e = await import('@s/e/f');";
    expect(specifiersOf(text)).toEqual(['./a', '../b', './c', './side', 'd/x', '@s/e/f']);
    expect(packageOf('@s/e/f')).toBe('@s/e');
    expect(packageOf('d/x')).toBe('d');
  });
});
