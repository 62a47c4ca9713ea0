#!/usr/bin/env node
// `npm run depcheck`, and the first step of `npm test`: the layer rules of docs/architecture.md,
// checked by dependency-cruiser in two passes, each printing its violations.
//   1. production code (src/, workers/; tests excluded): layers, folder cycles, module cycles,
//      what the model worker may load (.dependency-cruiser.cjs);
//   2. everything, tests, bench and scripts included: module cycles and unresolvable imports
//      (.dependency-cruiser-tests.cjs).
// Exits 1 when either pass finds a violation.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const depcruise = join(root, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');

const passes = [
  { name: 'layers and cycles of production code', config: '.dependency-cruiser.cjs', paths: ['src', 'workers'] },
  { name: 'module cycles of tests, bench and scripts', config: '.dependency-cruiser-tests.cjs', paths: ['src', 'workers', 'test', 'bench', 'scripts'] },
];

let failed = false;
for (const pass of passes) {
  console.log(`[depcheck] ${pass.name} (${pass.config})`);
  // The `err` reporter prints only violations, and exits non-zero when one has severity error.
  const result = spawnSync(process.execPath, [depcruise, ...pass.paths, '--config', pass.config, '--output-type', 'err'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (result.status !== 0) failed = true;
}
if (failed) {
  console.error('[depcheck] dependency rules violated: see above, and docs/architecture.md for the rules and why');
  process.exit(1);
}
