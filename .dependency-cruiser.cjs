// The layer rules of buildfleet, checked by dependency-cruiser in `npm test` (and `npm run
// depcheck`). docs/architecture.md explains the layers and why each rule exists; this file is the
// one place they are written down. It checks the production code (src/ and workers/ without tests);
// .dependency-cruiser-tests.cjs checks tests, bench and scripts for module cycles. Rule syntax: dependency-cruiser's doc/rules-reference.md
// (`from`/`to` path and pathNot are regular expressions over paths from the repository root;
// `circular`, `reachable`, `scope: 'folder'`).
//
// Nothing is exempted: a shim left at an old path (`// moved: shim until …`) and the files that
// still import it are checked like everything else, so what remains to migrate shows up here.

/** Tests, test harnesses and tooling: bound by the cycle rules, not by the layer rules (a test may
 * reach any layer to set up what it checks). */
const TESTS = '\\.test\\.ts$|/testing/|^test/|^bench/|^scripts/';

/** What is not shipped in the build (tsconfig.build.json): tests, harnesses, test support, bench. */
const TEST_SUPPORT = '\\.test\\.ts$|/testing/|^test/|^bench/';

/** The layers, lowest first. A module may import its own layer and the layers below it, never a
 * layer above; inside a layer the folders must not import each other in a cycle. */
const LAYERS = [
  {
    name: 'domain',
    path: '^src/domain/',
    why: 'the vocabulary every layer shares (phases, tool names and input schemas, model messages, model capabilities, parse modes): importing upward would make the ground floor depend on what stands on it',
  },
  {
    name: 'base',
    // src/redis: connections to one Redis server or a Redis Cluster, and the scans that span it.
    path: '^src/(parsing|telemetry|redis)/|^src/config\\.ts$',
    why: 'the parser, logging/tracing/metric names, the configuration and Redis connections are used by every process and know nothing of runs, jobs or tools',
  },
  {
    name: 'state',
    // src/runs is the engine's old home, kept here until nothing remains there.
    path: '^src/(engine|runs|jobs|history)/',
    why: "a run's state in Redis (engine), its history in PostgreSQL (history) and the job protocol (jobs) are what the capabilities and the turn act on; they must not know who acts",
  },
  {
    name: 'capabilities',
    // src/sites: the site store (deployments and published pointers on a volume), used by the
    // deploy/publish tools and read by the API; it reuses the workspace path guard (safety).
    // src/webhooks: the webhook URL policy, signatures and one delivery attempt (docs/webhooks.md);
    // the webhook worker (src/workers/) drives them.
    // src/providers: the model providers (Anthropic, Bedrock, Vertex, OpenAI-compatible) over the
    // model client (docs/providers.md); the turn calls a model through one of them.
    path: '^src/(model|providers|tools|agents|safety|auth|sites|webhooks)/',
    why: 'the model client, the tools, the safety guards, API keys and the site store each do one thing; the turn logic and the workers compose them, never the other way round',
  },
  {
    name: 'agent',
    path: '^src/agent/',
    why: 'the turn logic decides what happens next; it is driven by the workers and must not reach the processes that drive it',
  },
  {
    name: 'workers',
    // src/queues holds the workers until they move to src/workers (and shims of the job protocol).
    path: '^src/(workers|queues)/',
    why: 'a worker maps one job onto the turn or a tool; wiring the process around it is the fleet',
  },
  {
    name: 'fleet',
    path: '^src/fleet/',
    why: 'the wiring of a process (connections, roles, metrics hooks): it may use everything below and nothing may depend on it',
  },
  {
    name: 'apps',
    // src/console: the run console's server, started by the API process (docs/console.md).
    path: '^src/(api|cli|console|dev|sim)/|^src/cli\\.ts$|^workers/',
    why: 'what a person or a deployment starts (API, run console, CLI, dev tools, simulator, worker entry points): nothing imports an app',
  },
];

const anyOf = (paths) => paths.join('|');

/** One rule per layer: it imports nothing from the layers above it. */
const layerRules = LAYERS.slice(0, -1).map((layer, index) => ({
  name: `layer-${layer.name}-imports-no-higher-layer`,
  severity: 'error',
  comment: `${layer.name} (layer ${index}) must not import ${LAYERS.slice(index + 1)
    .map((higher) => higher.name)
    .join(', ')}: ${layer.why}.`,
  from: { path: layer.path, pathNot: TESTS },
  to: { path: anyOf(LAYERS.slice(index + 1).map((higher) => higher.path)) },
}));

/** The engine's public face, and who is bound to it: every module outside src/engine/ (tests,
 * bench and scripts too, checked by the second pass: .dependency-cruiser-tests.cjs). */
const ENGINE_INDEX = '^src/engine/index\\.ts$';
const ENGINE_OUTSIDE = '^(src|workers|test|bench|scripts)/';

/** The model worker's whole module graph stays free of what only the tool worker needs. */
const TOOL_IMPLEMENTATIONS = '^src/tools/(core|build|ops|http|workspace)/|^src/tools/tool-implementations\\.ts$';
const PLAYWRIGHT = '(^|/)node_modules/playwright-core/|^playwright-core$';

module.exports = {
  forbidden: [
    {
      name: 'no-module-cycles',
      severity: 'error',
      comment:
        'A module cycle makes load order decide what is undefined at import time, and no cycle can be understood one module at a time.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-folder-cycles',
      severity: 'error',
      comment:
        'Two folders that import each other are one folder in two places (the layer rules forbid cycles across layers; this catches those inside a layer, e.g. model <-> tools or api <-> cli).',
      scope: 'folder',
      from: { path: '^src/' },
      to: { path: '^src/', circular: true },
    },
    ...layerRules,
    {
      name: 'every-module-has-a-layer',
      severity: 'error',
      comment: 'A module outside every layer is bound by no layer rule: add its folder to LAYERS in .dependency-cruiser.cjs (and to docs/architecture.md).',
      from: { path: '^src/', pathNot: anyOf([TESTS, ...LAYERS.map((layer) => layer.path)]) },
      to: {},
    },
    {
      name: 'domain-imports-only-zod',
      severity: 'error',
      comment: 'The domain is pure: types, constants and pure functions, with zod for schemas. No Node built-in, no other package.',
      from: { path: '^src/domain/', pathNot: TESTS },
      to: { dependencyTypesNot: ['local'], pathNot: '(^|/)node_modules/zod/' },
    },
    {
      name: 'agent-imports-tool-definitions-only',
      severity: 'error',
      comment:
        'The turn needs what the model is told about the tools (src/tools/tool-definitions.ts; the filler tools of the tiers experiment are definitions too), never what the tool worker runs.',
      from: { path: '^src/agent/', pathNot: TESTS },
      to: { path: '^src/tools/', pathNot: '^src/tools/(tool-definitions|filler-tools)\\.ts$' },
    },
    {
      name: 'model-worker-loads-no-tool-implementation',
      severity: 'error',
      comment:
        'The model worker process must not load Chromium launchers, fetch code or workspace writers (nor playwright-core): it needs tool names, descriptions and input schemas only.',
      from: { path: '^src/(workers|queues)/model-worker\\.ts$' },
      to: { path: anyOf([TOOL_IMPLEMENTATIONS, PLAYWRIGHT]), reachable: true },
    },
    {
      name: 'engine-imported-through-its-index',
      severity: 'error',
      comment:
        "The run engine shows one face (src/engine/index.ts): code outside src/engine/ imports nothing else of it, so a run's keys, scripts and systems stay the engine's own and can change behind the index (docs/architecture.md#the-run-engine).",
      from: { path: ENGINE_OUTSIDE, pathNot: '^src/engine/' },
      to: { path: '^src/engine/', pathNot: ENGINE_INDEX },
    },
    {
      name: 'simulator-imports-domain-and-parsing-only',
      severity: 'error',
      comment:
        'The simulator plays the Messages API from its documentation, not from the fleet: it may share the vocabulary (domain) and the text parser, nothing else.',
      from: { path: '^src/sim/', pathNot: TESTS },
      to: { path: '^src/', pathNot: '^src/(sim|domain|parsing)/' },
    },
    {
      // Checked by the second pass (.dependency-cruiser-tests.cjs): this pass excludes the tests.
      name: 'production-imports-no-test-support',
      severity: 'error',
      comment: 'Tests, test harnesses and the bench are not in the build (test/deploy/role-processes.test.ts); production code must not need them.',
      from: { path: '^src/|^workers/', pathNot: TESTS },
      to: { path: TEST_SUPPORT },
    },
    {
      name: 'no-unresolvable-imports',
      severity: 'error',
      comment: 'An import that resolves to nothing hides its edge from every rule above.',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Folder cycles and layers are about production code: a test in a low folder may import a
    // high one to set up what it checks, which would show as a folder cycle.
    exclude: { path: TESTS },
    // The TypeScript configuration gives dependency-cruiser the NodeNext resolution of this repo,
    // where `./x.js` names `./x.ts` (dependency-cruiser tries the .ts source when the .js file does
    // not exist: sverweij/dependency-cruiser#364, fixed in #365).
    tsConfig: { fileName: 'tsconfig.json' },
    // Type-only imports count: a type imported from a higher layer couples the layers as much as
    // a value does, even though the compiled JavaScript drops it.
    tsPreCompilationDeps: true,
    // Resolve package.json "exports" the way Node does, so npm packages resolve to real files.
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
    },
  },
};
