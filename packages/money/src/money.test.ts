import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { amountProblem, JsonDecimal, MAX_AMOUNT, money, Money, toJsonNumber } from './index';

describe('money', () => {
  it('adds exactly and prints the digits it holds', () => {
    expect(money('0.1').add('0.2').toString()).toBe('0.3');
    expect(toJsonNumber(money('0.1').add('0.2'))).toEqual(new JsonDecimal('0.3'));
    expect(toJsonNumber('1234.50').text).toBe('1234.5');
    expect(money({ toString: () => '8910000000.296992' }).toFixed()).toBe('8910000000.296992');
  });

  it.each([
    ['100.1', 2, null],
    ['999999999.99', 2, null],
    ['0.001', 2, 'must have at most 2 decimal places'],
    ['0', 2, 'must be greater than 0'],
    ['-1', 2, 'must be greater than 0'],
    ['1000000000', 2, 'must be less than 1000000000'],
    ['Infinity', 2, 'must be a finite number'],
  ])('says why %p (%p places) is refused, or null', (text, decimals, problem) => {
    expect(amountProblem(new Money(text), { decimals })).toBe(problem);
  });

  it('takes a lower maximum', () => {
    expect(amountProblem(new Money('10'), { decimals: 0, max: new Money('10') })).toBe('must be less than 10');
    expect(MAX_AMOUNT.toString()).toBe('1000000000');
  });
});

describe("@pay/money's import graph", () => {
  const src = __dirname;
  const sources = readdirSync(src).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));

  it('names nothing but decimal.js and its own files, type-only imports included', () => {
    const specifiers = sources.flatMap((f) =>
      [...readFileSync(path.join(src, f), 'utf8').matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)['"]([^'"]+)['"]/g)].map((m) => m[1]!),
    );
    expect(specifiers.length).toBeGreaterThan(0);
    expect([...new Set(specifiers.filter((s) => !s.startsWith('./')))]).toEqual(['decimal.js']);
    const manifest = JSON.parse(readFileSync(path.join(src, '..', 'package.json'), 'utf8'));
    expect(manifest.dependencies).toEqual({ 'decimal.js': expect.any(String) });
    expect(manifest.devDependencies).toBeUndefined();
  });

  it('loads nothing from node_modules but decimal.js in a fresh process', () => {
    // A process of its own (jest's registry holds whatever else this worker loaded), with
    // TypeScript compiled by tsx, whose own modules are loaded before the snapshot.
    const script = `const before = new Set(Object.keys(require.cache));
      require(${JSON.stringify(path.join(src, 'index.ts'))});
      process.stdout.write(JSON.stringify(Object.keys(require.cache).filter((f) => !before.has(f))));`;
    const loaded: string[] = JSON.parse(execFileSync(process.execPath, ['--require', require.resolve('tsx/cjs'), '-e', script], { encoding: 'utf8' }));
    const ours = loaded.filter((f) => f.startsWith(src + path.sep));
    const modules = loaded.filter((f) => f.includes(`${path.sep}node_modules${path.sep}`));
    expect(ours.length).toBe(sources.length);
    expect(modules.length).toBeGreaterThan(0);
    expect(modules.filter((f) => !/[\\/]node_modules[\\/]decimal\.js[\\/]/.test(f))).toEqual([]);
    expect(loaded.length).toBe(ours.length + modules.length);
  });
});
