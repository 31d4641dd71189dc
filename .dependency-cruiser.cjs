/**
 * The import rules of the workspace, run by scripts/dependency-rules.test.ts over services,
 * packages, bench, scripts, e2e, infra and jest (docs/architecture.md, "Rules in code").
 * A fifth rule, that a table is named only in its owner's store, is a source scan in the same
 * test (scripts/table-owners.ts): a table is named by a string, not imported.
 *
 * A store is `store.ts`, `store.<anything>.ts`, `<name>-store.ts`, or any file in a `store/`
 * folder. A module is a folder of a service's src: `src/modules/<name>/` in the layout being
 * moved to, `src/<name>/` while a service is still flat. A channel is a folder of
 * `src/channels/` (`pay-page`, `console`), or today's flat `src/pay-page/` and `src/console/`.
 */
const STORE = '(?:|.*/)(?:store\\.ts$|store\\.[^/]+\\.ts$|store/|[^/]*-store\\.ts$)';
const CHANNEL = '(?:channels/[^/]+|pay-page|console)';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment:
        'Two files that import each other, even for types only, can only be understood and changed together: ' +
        'move what both need below them, or have the lower one take it as a parameter.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'packages-stay-below',
      severity: 'error',
      comment:
        'Packages are what services, scripts, the bench and e2e are built from; they never import them. ' +
        "A package's own tests may (they check it against the workspace, as client's documents.test.ts does).",
      from: { path: '^packages/', pathNot: '\\.test\\.ts$' },
      to: { path: '^(services|scripts|bench|e2e|infra|jest)/' },
    },
    {
      name: 'channels-not-to-stores',
      severity: 'error',
      comment: "A channel (pay page, console) calls modules' services, never a module's store: the store is its module's own.",
      from: { path: `^services/([^/]+)/src/(${CHANNEL})/` },
      to: { path: `^services/$1/src/(?:modules/)?[^/]+/${STORE}`, pathNot: `^services/$1/src/$2/` },
    },
    {
      name: 'modules-not-to-other-stores',
      severity: 'error',
      comment: "A module's store is its own: another module calls its service (or the functions it exports), never its store.",
      from: { path: '^services/([^/]+)/src/(?:modules/)?([^/]+)/', pathNot: `^services/[^/]+/src/${CHANNEL}/` },
      to: { path: `^services/$1/src/(?:modules/)?[^/]+/${STORE}`, pathNot: '^services/$1/src/(?:modules/)?$2/' },
    },
    {
      name: 'test-support-through-its-entry',
      severity: 'error',
      comment:
        "A service's test/ folder is its own tests' business; what others (the bench, e2e, other services and projects) " +
        'may use of it is what its test/index.ts exports (`@pay/<service>/test`).',
      // $1: the project a file is in (`services/crypto`, `packages/http`) or its top folder (`bench`, `e2e`).
      from: { path: '^((?:services|packages)/[^/]+|[^/]+)/' },
      to: { path: '^services/[^/]+/test/', pathNot: '^(?:$1/test/|services/[^/]+/test/index\\.ts$)' },
    },
  ],
  options: {
    // Type-only imports are edges too: a cycle through `import type` is still a cycle.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    // Generated clients are not part of the design; examples import their package by its
    // published name.
    exclude: { path: '(^|/)(node_modules|generated|dist|examples)/|\\.d\\.ts$' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
