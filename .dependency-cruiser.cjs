/**
 * The import rules of the house (docs/architecture.md, "Layers"): each layer imports only
 * layers below it, and nothing imports in a cycle. `npm run lint:deps` checks them; CI runs it.
 */
const LAYERS = [
  ['base', '^src/(text/|git/|vocabulary|errors|yaml|package|version|redact|suggest\\.|io|prices|syntaxes|lint-modes|text-input|concurrency|young-generation|documents|plural|option-values|prompt-files|own|arrays|atomic)'],
  ['protocol', '^src/protocol/'],
  ['contract', '^src/contract/'],
  ['checks', '^src/checks/'],
  ['kit', '^src/kit/'],
  ['programs', '^adapters/'],
  ['config', '^src/config/'],
  ['registry', '^src/adapters/'],
  ['store', '^src/store/'],
  ['preflight', '^src/preflight/'],
  ['audit', '^src/audit/'],
  ['engine', '^src/engine/'],
  ['side', '^src/side/'],
  ['judge', '^src/(judge|gate)/'],
  ['attest', '^src/attest/'],
  ['cache', '^src/cache/'],
  ['replay', '^src/replay/'],
  ['grade', '^src/grade/'],
  ['presentation', '^src/(report|formats|ui)/'],
  ['defects', '^src/defects/'],
  ['suggestions', '^src/suggestions/'],
  ['decide', '^src/decide/'],
  ['serve', '^src/serve/'],
  ['commands', '^src/(commands|request)/'],
  // bounce mcp: tools that call the commands (src/mcp/).
  ['mcp', '^src/mcp/'],
  ['cli', '^src/(cli|help)\\.ts$'],
];

// A layer may not import any layer above it.
const upward = LAYERS.map(([name, path], i) => ({
  name: `layer-${name}`,
  comment: `${name} imports only the layers below it (docs/architecture.md, "Layers")`,
  severity: 'error',
  from: { path },
  to: { path: LAYERS.slice(i + 1).map(([, p]) => `(${p})`).join('|') || '^$' },
}));

module.exports = {
  forbidden: [
    { name: 'no-cycle', comment: 'no import cycle between files', severity: 'error', from: {}, to: { circular: true } },
    {
      name: 'in-a-layer',
      comment: 'every source file belongs to a layer (add it to LAYERS in .dependency-cruiser.cjs)',
      severity: 'error',
      from: { path: '^(src|adapters)/', pathNot: LAYERS.map(([, p]) => `(${p})`).join('|') },
      to: {},
    },
    {
      name: 'agent-to-agent',
      comment: "an agent's folder imports no other agent's: what two agents share lives in src/kit/ (docs/architecture.md, \"Adding an agent\")",
      severity: 'error',
      from: { path: '^adapters/([^/]+)/' },
      to: { path: '^adapters/', pathNot: '^adapters/$1/' },
    },
    {
      name: 'command-to-command',
      comment: 'a command imports no other command: what two commands share lives in src/request/ (or below)',
      severity: 'error',
      from: { path: '^src/commands/' },
      to: { path: '^src/commands/' },
    },
    ...upward,
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|node_modules)/' },
  },
};
