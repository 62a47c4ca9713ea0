// The second pass of the dependency check (see .dependency-cruiser.cjs for the first): tests, test
// harnesses, bench and scripts are bound by no layer rule, but they must not form module cycles,
// every import must resolve, and production code must not import them (an edge the first pass
// cannot see, since it excludes them). The other production rules are switched off here (severity 'ignore'
// merges into the rule of the same name: dependency-cruiser doc/rules-reference.md, "extends"), so
// a production violation is reported once, by the first pass. `engine-imported-through-its-index` is
// kept here for the tests, bench and scripts outside src/engine/ (a production module that breaks it
// is reported by both passes).
const base = require('./.dependency-cruiser.cjs');

const KEPT = new Set(['no-module-cycles', 'no-unresolvable-imports', 'production-imports-no-test-support', 'engine-imported-through-its-index']);

module.exports = {
  extends: './.dependency-cruiser.cjs',
  forbidden: base.forbidden.filter((rule) => !KEPT.has(rule.name)).map((rule) => ({ name: rule.name, severity: 'ignore' })),
  options: {
    ...base.options,
    // Everything, tests included ('^$' matches no path).
    exclude: { path: '^$' },
  },
};
