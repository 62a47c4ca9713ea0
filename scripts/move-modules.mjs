#!/usr/bin/env node
// Moves modules into the folder of their layer (docs/architecture.md) and rewrites every relative
// import of them in src/, test/, bench/, scripts/ and workers/. Idempotent: a module already at its
// new path is not moved again, and an import already pointing at the new path is left alone, so
// it can be re-run after anyone adds an import of an old path.
//
//   node scripts/move-modules.mjs                       move, rewrite everything, drop unused shims
//   node scripts/move-modules.mjs --skip=src/engine/ --skip=src/agent/run-model-turn.ts
//                                                       leave those files untouched (and unmoved);
//                                                       an old path they still import gets a
//                                                       re-export shim
//   node scripts/move-modules.mjs --dry-run             print what would change, change nothing
//
// A shim is a file whose first line starts with `// moved:`; once nothing imports its path any
// more, a run deletes it. Comments naming an old path from the repository root ("see
// src/model/model-capabilities.ts") are rewritten too. Plain Node with no dependencies, so it runs
// on any checkout.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Old path → new path, both from the repository root. Tests move with their module. */
export const MOVES = {
  // Layer 0, domain: the vocabulary every layer uses (pure; zod is its only import).
  'src/agent/profile.ts': 'src/domain/profile.ts',
  'src/agent/finish-gate.ts': 'src/domain/finish-gate.ts',
  'src/agent/finish-gate.test.ts': 'src/domain/finish-gate.test.ts',
  'src/tools/input-schemas.ts': 'src/domain/tool-input-schemas.ts',
  'src/model/model-message.ts': 'src/domain/model-message.ts',
  'src/model/model-capabilities.ts': 'src/domain/model-capabilities.ts',
  'src/model/model-capabilities.test.ts': 'src/domain/model-capabilities.test.ts',
  'src/model/resolve-run-model-settings.ts': 'src/domain/resolve-run-model-settings.ts',
  'src/model/resolve-run-model-settings.test.ts': 'src/domain/resolve-run-model-settings.test.ts',
  'src/tools/output/parse-output-modes.ts': 'src/domain/tool-output-modes.ts',
  'src/tools/output/parse-output-modes.test.ts': 'src/domain/tool-output-modes.test.ts',
  // Layer 2, jobs: the job protocol, apart from the workers that take the jobs.
  'src/queues/job-catalog.ts': 'src/jobs/job-catalog.ts',
  'src/queues/fleet-queues.ts': 'src/jobs/fleet-queues.ts',
  'src/queues/redis-connection.ts': 'src/jobs/redis-connection.ts',
  // Layer 3, model: the spend-limit flag is state of the model account, read before model calls.
  'src/fleet/spend-limit-flag.ts': 'src/model/spend-limit-flag.ts',
  // Layer 6, fleet: metrics hooks wire agent, tools and safety together.
  'src/telemetry/fleet-metrics.ts': 'src/fleet/fleet-metrics.ts',
  // Layer 7, api: an HTTP route belongs to the API, not to the kill switch it drives.
  'src/safety/kill-switch-routes.ts': 'src/api/routes/kill-switch-routes.ts',
  'src/safety/kill-switch-routes.test.ts': 'src/api/routes/kill-switch-routes.test.ts',
  // Layer 5, workers: the processes that take jobs, apart from the job protocol (src/jobs).
  'src/queues/model-worker.ts': 'src/workers/model-worker.ts',
  'src/queues/tool-worker.ts': 'src/workers/tool-worker.ts',
  // Layer 3, model: the fleet-wide pause of model calls is checked by the turn before every call.
  'src/queues/model-call-pause.ts': 'src/model/model-call-pause.ts',
  'src/queues/model-call-pause.test.ts': 'src/model/model-call-pause.test.ts',
};

/** Modules split in two: old path → each exported name → [new path, its name there]. An import of
 * the old path becomes one import per new module (a renamed export keeps the importer's local name
 * with `as`). The old path is never moved: it is a hand-written shim until nothing imports it. */
export const SPLITS = {
  // What the model is told (names, descriptions, input schemas) apart from what the tool worker
  // runs, so the model worker loads no tool implementation.
  'src/tools/tool-catalog.ts': {
    anthropicToolsFor: ['src/tools/tool-definitions.ts', 'anthropicToolsFor'],
    allAnthropicTools: ['src/tools/tool-definitions.ts', 'allAnthropicTools'],
    AnthropicTool: ['src/tools/tool-definitions.ts', 'AnthropicTool'],
    AnthropicInputSchema: ['src/tools/tool-definitions.ts', 'AnthropicInputSchema'],
    toolDefinitions: ['src/tools/tool-implementations.ts', 'toolImplementations'],
  },
};

const SCANNED_ROOTS = ['src', 'test', 'bench', 'scripts', 'workers'];
const SOURCE_FILE = /\.(ts|mts|cts|js|mjs|cjs)$/;
const SHIM_MARKER = '// moved:';
// Relative specifiers of static imports and exports, side-effect imports and dynamic import().
const SPECIFIER = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(['"])(\.{1,2}\/[^'"\n]+)\2/g;
// `import { a, type B, c as d } from '...'` (and `import type { ... }`), the form SPLITS rewrites.
const NAMED_IMPORT = /\bimport\s+(type\s+)?\{([^}]*)\}\s*from\s*(['"])(\.{1,2}\/[^'"\n]+)\3;?/g;

const options = parseArguments(process.argv.slice(2));
const log = (line) => console.log(options.dryRun ? `[dry-run] ${line}` : line);

function parseArguments(argv) {
  const parsed = { skip: [], dryRun: false };
  for (const argument of argv) {
    if (argument === '--dry-run') parsed.dryRun = true;
    else if (argument.startsWith('--skip=')) parsed.skip.push(...argument.slice('--skip='.length).split(',').filter(Boolean));
    else {
      console.error(`unknown argument ${argument}\nusage: node scripts/move-modules.mjs [--skip=path[,path]] [--dry-run]`);
      process.exit(2);
    }
  }
  return parsed;
}

const toPosix = (path) => path.split('\\').join('/');
const absolute = (repoPath) => join(ROOT, repoPath);
const repoPathOf = (file) => toPosix(relative(ROOT, file));
const isShim = (repoPath) => existsSync(absolute(repoPath)) && readFileSync(absolute(repoPath), 'utf8').startsWith(SHIM_MARKER);
const isSkipped = (repoPath) => options.skip.some((prefix) => repoPath === prefix || repoPath.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`));

/** The module a relative specifier names, as a repository path of its TypeScript source. */
function targetOf(fromDirectory, specifier) {
  const target = repoPathOf(resolve(fromDirectory, specifier));
  // NodeNext: sources import `x.js` for `x.ts` (and `x.mjs` for `x.mts`).
  return target.replace(/\.js$/, '.ts').replace(/\.mjs$/, '.mts');
}

/** The specifier that names `targetRepoPath` from a file in `fromDirectory`, in the import style
 * of `original` (the extension it used). */
function specifierFor(fromDirectory, targetRepoPath, original) {
  let path = toPosix(relative(fromDirectory, absolute(targetRepoPath)));
  if (!path.startsWith('.')) path = `./${path}`;
  if (original.endsWith('.js')) path = path.replace(/\.ts$/, '.js');
  else if (original.endsWith('.mjs')) path = path.replace(/\.mts$/, '.mjs');
  return path;
}

/** Rewrites the relative imports in `source` (a file read from `readDirectory`, to be written in
 * `writeDirectory`) so each points at the moved module's new path. */
function rewriteImports(source, readDirectory, writeDirectory) {
  return source.replace(SPECIFIER, (whole, lead, quote, specifier) => {
    const target = targetOf(readDirectory, specifier);
    const moved = ACTIVE[target];
    // A file that moved itself keeps its imports of unmoved modules, re-anchored at its new place.
    const destination = moved ?? (readDirectory === writeDirectory ? null : target);
    if (!destination) return whole;
    const next = specifierFor(writeDirectory, destination, specifier);
    return next === specifier ? whole : `${lead}${quote}${next}${quote}`;
  });
}

/** Rewrites named imports of a split module into one import per module it was split into. An
 * import naming something the split table does not know is left alone (and reported). */
function rewriteSplitImports(source, directory, repoPath) {
  return source.replace(NAMED_IMPORT, (whole, typeOnly, list, quote, specifier) => {
    const split = SPLITS[targetOf(directory, specifier)];
    if (!split) return whole;
    const byModule = new Map();
    for (const raw of list.split(',').map((part) => part.trim()).filter(Boolean)) {
      const match = /^(type\s+)?([A-Za-z_$][\w$]*)(?:\s+as\s+([A-Za-z_$][\w$]*))?$/.exec(raw);
      const destination = match && split[match[2]];
      if (!destination) {
        console.error(`${repoPath}: ${raw} is not in the split table of ${specifier}; import left as it is`);
        return whole;
      }
      const [modulePath, exported] = destination;
      const local = match[3] ?? match[2];
      const entry = `${match[1] ?? ''}${exported}${local === exported ? '' : ` as ${local}`}`;
      byModule.set(modulePath, [...(byModule.get(modulePath) ?? []), entry]);
    }
    return [...byModule]
      .map(([modulePath, entries]) => `import ${typeOnly ?? ''}{ ${entries.join(', ')} } from ${quote}${specifierFor(directory, modulePath, specifier)}${quote};`)
      .join('\n');
  });
}

/** Mentions of an old path in comments ("see src/model/model-capabilities.ts") follow the move. */
function rewriteMentions(source) {
  let text = source;
  for (const [from, to] of Object.entries(ACTIVE)) text = text.split(from).join(to);
  return text;
}

function sourceFiles() {
  const files = [];
  const walk = (directory) => {
    if (!existsSync(directory)) return;
    for (const entry of readdirSync(directory)) {
      if (entry === 'node_modules' || entry.startsWith('.')) continue;
      const path = join(directory, entry);
      if (statSync(path).isDirectory()) walk(path);
      else if (SOURCE_FILE.test(entry)) files.push(path);
    }
  };
  for (const root of SCANNED_ROOTS) walk(absolute(root));
  return files;
}

function isTracked(repoPath) {
  try {
    execFileSync('git', ['ls-files', '--error-unmatch', repoPath], { cwd: ROOT, stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

// The moves in force: done before (the new path exists) or done now. A move left pending (its
// module is skipped) changes no import yet.
const isPending = (from, to) => !existsSync(absolute(to)) && (!existsSync(absolute(from)) || isShim(from) || isSkipped(from));
const ACTIVE = Object.fromEntries(Object.entries(MOVES).filter(([from, to]) => !isPending(from, to)));

// 1. Move each module not yet at its new path, re-anchoring its own relative imports first.
for (const [from, to] of Object.entries(ACTIVE)) {
  if (existsSync(absolute(to))) continue;
  const source = readFileSync(absolute(from), 'utf8');
  const rewritten = rewriteMentions(rewriteImports(source, dirname(absolute(from)), dirname(absolute(to))));
  log(`move ${from} -> ${to}`);
  if (options.dryRun) continue;
  writeFileSync(absolute(from), rewritten);
  mkdirSync(dirname(absolute(to)), { recursive: true });
  // git mv keeps the history with the file (only a rename is staged; nothing is committed).
  if (isTracked(from)) execFileSync('git', ['mv', from, to], { cwd: ROOT, stdio: 'inherit' });
  else renameSync(absolute(from), absolute(to));
}

// 2. Point every import of an old path at the new one (skipped files excepted).
const importersOfOldPaths = new Map();
for (const file of sourceFiles()) {
  const repoPath = repoPathOf(file);
  // The map above names the old paths on purpose.
  if (isShim(repoPath) || repoPath === 'scripts/move-modules.mjs') continue;
  const source = readFileSync(file, 'utf8');
  if (isSkipped(repoPath)) {
    for (const match of source.matchAll(SPECIFIER)) {
      const target = targetOf(dirname(file), match[3]);
      if (ACTIVE[target] || SPLITS[target]) importersOfOldPaths.set(target, [...(importersOfOldPaths.get(target) ?? []), repoPath]);
    }
    continue;
  }
  const rewritten = rewriteMentions(rewriteSplitImports(rewriteImports(source, dirname(file), dirname(file)), dirname(file), repoPath));
  if (rewritten === source) continue;
  log(`rewrite imports in ${repoPath}`);
  if (!options.dryRun) writeFileSync(file, rewritten);
}

// 3. A shim at each old path a skipped file still imports; no shim where nothing does.
for (const [from, to] of Object.entries(ACTIVE)) {
  const importers = [...new Set(importersOfOldPaths.get(from) ?? [])].sort();
  if (importers.length > 0) {
    if (existsSync(absolute(from)) && !isShim(from)) continue;
    const shim = `${SHIM_MARKER} shim until ${importers.join(', ')} ${importers.length === 1 ? 'is' : 'are'} migrated\nexport * from '${specifierFor(dirname(absolute(from)), to, '.js')}';\n`;
    if (existsSync(absolute(from)) && readFileSync(absolute(from), 'utf8') === shim) continue;
    log(`shim ${from} -> ${to} (imported by ${importers.join(', ')})`);
    if (!options.dryRun) writeFileSync(absolute(from), shim);
  } else if (isShim(from)) {
    log(`delete shim ${from} (nothing imports it)`);
    if (!options.dryRun) rmSync(absolute(from));
  }
}
for (const from of Object.keys(SPLITS)) {
  const importers = [...new Set(importersOfOldPaths.get(from) ?? [])].sort();
  if (importers.length > 0) log(`keep shim ${from} (imported by ${importers.join(', ')})`);
  else if (isShim(from)) {
    log(`delete shim ${from} (nothing imports it)`);
    if (!options.dryRun) rmSync(absolute(from));
  }
}
