import { execFileSync } from 'node:child_process';
import path from 'node:path';

/**
 * The import graph has no cycles: not between modules, and not between the domain folders of a
 * service (`services/<name>/src/<domain>/`), where a cycle means two domains that can only be
 * understood, tested and changed together. The graph is dependency-cruiser's, which resolves
 * imports as TypeScript does (type-only imports, re-exports and dynamic imports included).
 */
const ROOT = path.resolve(__dirname, '..');

interface CruisedModule {
  source: string;
  dependencies: { module: string; resolved: string; coreModule: boolean; couldNotResolve: boolean }[];
}

function cruise(): CruisedModule[] {
  const bin = path.join(ROOT, 'node_modules', '.bin', 'depcruise');
  const out = execFileSync(
    bin,
    [
      'services',
      'packages',
      '--no-config',
      '--ts-config',
      'tsconfig.base.json',
      '--do-not-follow',
      'node_modules',
      // Generated clients and tests are not part of the design (a test may import what it
      // likes); examples import their package by its published name.
      '--exclude',
      '(^|/)(node_modules|generated|dist|examples)/|\\.test\\.ts$|\\.d\\.ts$',
      '--output-type',
      'json',
    ],
    { cwd: ROOT, maxBuffer: 256 * 1024 * 1024, encoding: 'utf8' },
  );
  return (JSON.parse(out) as { modules: CruisedModule[] }).modules;
}

/** `services/invoicing/src/invoices/store.ts` → `services/invoicing: invoices`; a file at the top of `src/` (the composition root: deps, app, main) → null. */
function domainOf(file: string): string | null {
  const m = /^(services\/[^/]+)\/src\/([^/]+)\/.+$/.exec(file);
  return m ? `${m[1]}: ${m[2]}` : null;
}

/** The strongly connected groups of more than one node of a directed graph (Tarjan). */
function cyclesOf(edges: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  let next = 0;
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1) groups.push(group.sort());
    }
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return groups;
}

describe('cyclesOf', () => {
  const graph = (pairs: [string, string][]) => {
    const g = new Map<string, Set<string>>();
    for (const [a, b] of pairs) g.set(a, (g.get(a) ?? new Set()).add(b));
    return g;
  };
  it('finds a cycle through several nodes, and nothing in a tree', () => {
    expect(cyclesOf(graph([['a', 'b'], ['b', 'c'], ['c', 'a'], ['c', 'd']]))).toEqual([['a', 'b', 'c']]);
    expect(cyclesOf(graph([['a', 'b'], ['a', 'c'], ['b', 'c']]))).toEqual([]);
  });
});

describe('the import graph', () => {
  let modules: CruisedModule[];
  beforeAll(() => {
    modules = cruise();
  }, 120_000);

  it('covers the services and packages', () => {
    const sources = modules.map((m) => m.source);
    expect(sources).toEqual(expect.arrayContaining(['services/invoicing/src/invoices/store.ts', 'services/crypto/src/withdrawals/store.ts', 'packages/kit/src/index.ts']));
    // A specifier the cruiser could not resolve would hide its edge: none may be left.
    const unresolved = modules.flatMap((m) => m.dependencies.filter((d) => d.couldNotResolve && !d.coreModule).map((d) => `${m.source} → ${d.module}`));
    expect(unresolved).toEqual([]);
  });

  it('has no cycle between modules', () => {
    const edges = new Map(modules.map((m) => [m.source, new Set(m.dependencies.map((d) => d.resolved))]));
    expect(cyclesOf(edges)).toEqual([]);
  });

  it('has no cycle between the domain folders of a service', () => {
    const edges = new Map<string, Set<string>>();
    for (const m of modules) {
      const from = domainOf(m.source);
      if (!from) continue;
      for (const d of m.dependencies) {
        const to = domainOf(d.resolved);
        if (to && to !== from) edges.set(from, (edges.get(from) ?? new Set()).add(to));
      }
    }
    expect(edges.size).toBeGreaterThan(10);
    expect(cyclesOf(edges)).toEqual(KNOWN_DOMAIN_CYCLES);
  });
});

/**
 * Debt, named so it cannot grow unseen: issue 28's money paths made invoices ask the acquirer
 * (expiry asks GetState, the detail lists attempts) while the acquirer settles invoices and opens
 * reviews. Untangling it is issue 30's layout work (a payment module that owns acquirer payments,
 * attempts and reviews). Any other cycle, or this one growing, still fails.
 */
const KNOWN_DOMAIN_CYCLES = [['services/invoicing: acquirers', 'services/invoicing: invoices', 'services/invoicing: reviews']];
