/**
 * jobproof's dependency direction (docs/decisions/009-contract-module.md). Check with `npx depcruise src`.
 *
 *   contract  ← zod only (+ pure src/lib helpers): the wire schemas, journal, client protocol, invariant ids
 *   lib       ← nothing of ours: clock, ids, canonical JSON, small CLI/report helpers
 *   fake-provider, reference-client, scenarios, verify-provider ← contract + lib, never each other
 *   conformance (the judge) ← contract + lib + the public faces (index.ts) of fake-provider and scenarios
 *   cli, src/index.ts, src/*-entry points ← anything's public face (composition roots)
 */
const AREAS = ['fake-provider', 'reference-client', 'scenarios', 'conformance', 'verify-provider'];
const others = (area) => `^src/(${[...AREAS.filter((a) => a !== area), 'cli'].join('|')})/`;

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import cycle makes a module impossible to read or test alone.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'contract-stands-alone',
      severity: 'error',
      comment: 'src/contract is docs/spec as zod: it depends on zod and the pure helpers in src/lib, nothing else of ours.',
      from: { path: '^src/contract/' },
      to: { path: '^src/', pathNot: '^src/(contract|lib)/' },
    },
    {
      name: 'lib-is-a-leaf',
      severity: 'error',
      comment: 'src/lib holds helpers every part may use; it must not reach into any part.',
      from: { path: '^src/lib/' },
      to: { path: '^src/', pathNot: '^src/lib/' },
    },
    ...['fake-provider', 'reference-client', 'scenarios', 'verify-provider'].map((area) => ({
      name: `${area}-apart`,
      severity: 'error',
      comment: `${area} depends on src/contract and src/lib only, never on another part (a client to copy must not need the fake server; a certifier must not need the CLI).`,
      from: { path: `^src/${area}/` },
      to: { path: others(area) },
    })),
    {
      name: 'judge-uses-public-faces',
      severity: 'error',
      comment:
        'The judge runs the fake provider and reads scenarios through their index.ts only, and never imports a client: it judges any client by its evidence.',
      from: { path: '^src/conformance/' },
      to: { path: others('conformance'), pathNot: '^src/(fake-provider|scenarios)/index\\.ts$' },
    },
    {
      name: 'judge-knows-no-fault-engine',
      severity: 'error',
      comment:
        'The checker reasons from what the journal says the client was told (src/contract/journal.ts), never from how a fault was injected: it imports nothing of the fake provider, not even its public face.',
      from: { path: '^src/conformance/checker/' },
      to: { path: '^src/fake-provider/' },
    },
    {
      name: 'no-dev-deps-in-src',
      severity: 'error',
      comment:
        'Published code must not import devDependencies (msw and pg are optional peers: msw loaded only by jobproof/msw, pg see below).',
      from: { path: '^src/' },
      to: { dependencyTypes: ['npm-dev'], pathNot: 'node_modules/(msw|pg)/' },
    },
    {
      name: 'pg-loaded-lazily',
      severity: 'error',
      comment: 'pg is an optional peer: src imports its types only; the driver is loaded at run time by requirePg (store/pg-pool.ts).',
      from: { path: '^src/' },
      to: { path: 'node_modules/pg/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'An import that does not resolve is a typo or a missing dependency.',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
