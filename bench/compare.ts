// Before/after table for a change: runs the bench of two revisions one after the other on this
// machine and prints their latest.json side by side (bench/README.md, "Before and after").
//
//   node --import tsx bench/compare.ts --before <rev> [--after <rev>|.] [--out DIR] [--keep]
//   node --import tsx bench/compare.ts --print BEFORE.json AFTER.json
//
// A revision is checked out with `git worktree add --detach` into a temporary directory (the
// current checkout, its index and its files are not touched), node_modules is a symlink to this
// checkout's, and when the revision's bench lacks the sections of this one (no
// BENCH_CONCURRENT_RUNS in its bench/run.ts) this bench's bench/*.ts files are copied over it.
// `.` means the current checkout as it is, uncommitted edits included. The benches run with
// `node --import tsx bench/run.ts`, never `npm run bench`: its setup step would `npm ci` in the
// worktree and, through the symlink, wipe this checkout's node_modules.
// Every BENCH_* variable and REDIS_URL set for this command is passed on to both benches.
import type { TargetCheck } from './run.js';
import { spawn, execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
const REPO_ROOT = resolve(BENCH_DIR, '..');
/** A bench/run.ts that reads this variable has every section of this one. */
const CURRENT_BENCH_MARKER = 'BENCH_CONCURRENT_RUNS';

const USAGE = `usage: node --import tsx bench/compare.ts --before <rev> [--after <rev>|.] [--out DIR] [--keep]
       node --import tsx bench/compare.ts --print BEFORE.json AFTER.json`;

function git(args: string[], cwd = REPO_ROOT): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
}

function runBench({ directory, resultsDir }: { directory: string; resultsDir: string }): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/run.ts'], {
      cwd: directory,
      env: { ...process.env, BENCH_RESULTS_DIR: resultsDir },
      stdio: 'inherit',
    });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolvePromise() : reject(new Error(`bench in ${directory} exited with ${code}`))));
  });
}

/** Runs the bench of `revision` and returns the path of its latest.json. */
async function benchOf({ revision, label, outDir, keep }: { revision: string; label: string; outDir: string; keep: boolean }): Promise<string> {
  const resultsDir = join(outDir, label);
  mkdirSync(resultsDir, { recursive: true });
  if (revision === '.') {
    process.stderr.write(`\n## ${label}: the current checkout (${REPO_ROOT})\n`);
    await runBench({ directory: REPO_ROOT, resultsDir });
    return join(resultsDir, 'latest.json');
  }
  const commit = git(['rev-parse', '--verify', `${revision}^{commit}`]);
  const directory = mkdtempSync(join(tmpdir(), `buildfleet-bench-${label}-`));
  process.stderr.write(`\n## ${label}: ${revision} (${commit.slice(0, 12)}) in ${directory}\n`);
  git(['worktree', 'add', '--detach', directory, commit]);
  try {
    symlinkSync(join(REPO_ROOT, 'node_modules'), join(directory, 'node_modules'), 'dir');
    const theirs = join(directory, 'bench', 'run.ts');
    if (!existsSync(theirs) || !readFileSync(theirs, 'utf8').includes(CURRENT_BENCH_MARKER)) {
      process.stderr.write(`   its bench lacks the current sections: copying this bench/*.ts over it\n`);
      mkdirSync(join(directory, 'bench'), { recursive: true });
      for (const file of readdirSync(BENCH_DIR).filter((name) => name.endsWith('.ts'))) copyFileSync(join(BENCH_DIR, file), join(directory, 'bench', file));
    }
    await runBench({ directory, resultsDir });
    // An older bench ignores BENCH_RESULTS_DIR and writes into its own tree.
    const written = join(resultsDir, 'latest.json');
    if (!existsSync(written)) copyFileSync(join(directory, 'bench', 'results', 'latest.json'), written);
    return written;
  } finally {
    if (keep) process.stderr.write(`   kept ${directory} (remove with: git worktree remove --force ${directory})\n`);
    else {
      git(['worktree', 'remove', '--force', directory]);
      rmSync(directory, { recursive: true, force: true });
    }
  }
}

// ---- side-by-side table ------------------------------------------------------------------------

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Leaf values by dotted path; arrays of objects are keyed by their `workers`, `command` or `name`. */
function flatten(value: Json, path: string, out: Map<string, number | string>): void {
  if (typeof value === 'number' || typeof value === 'string') {
    out.set(path, value);
    return;
  }
  if (value === null || typeof value === 'boolean') {
    out.set(path, String(value));
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((item, index) => {
      if (!item || typeof item !== 'object' || Array.isArray(item)) return flatten(item, `${path}[${index}]`, out);
      // The field that names the entry becomes its key and is not repeated as a figure.
      const field = ['workers', 'command', 'name'].find((name) => typeof item[name] === 'number' || typeof item[name] === 'string');
      if (field === undefined) return flatten(item, `${path}[${index}]`, out);
      const { [field]: label, ...rest } = item;
      const key = field === 'workers' ? `${String(label)}+${String(label)}` : String(label);
      flatten(rest, `${path}[${key}]`, out);
    });
    return;
  }
  for (const [key, child] of Object.entries(value)) flatten(child, path ? `${path}.${key}` : key, out);
}

const SKIPPED_KEYS = new Set(['rows', 'targets', 'startedAt']);

function figures(document: Record<string, Json>): Map<string, number | string> {
  const out = new Map<string, number | string>();
  for (const [key, value] of Object.entries(document)) if (!SKIPPED_KEYS.has(key)) flatten(value, key, out);
  return out;
}

function show(value: number | string | undefined): string {
  if (value === undefined) return '—';
  if (typeof value === 'string') return value.length > 40 ? `${value.slice(0, 37)}...` : value;
  if (!Number.isFinite(value)) return String(value);
  if (Math.abs(value) >= 100) return value.toFixed(0);
  if (Math.abs(value) >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

function change(before: number | string | undefined, after: number | string | undefined): string {
  if (typeof before !== 'number' || typeof after !== 'number' || !Number.isFinite(before) || !Number.isFinite(after) || before === 0) return '';
  const percent = ((after - before) / Math.abs(before)) * 100;
  return `${percent >= 0 ? '+' : ''}${percent.toFixed(0)} %`;
}

/** A target row as bench/run.ts writes it into latest.json. */
type TargetEntry = TargetCheck;

function table(headers: string[], body: string[][]): string {
  const widths = headers.map((header, column) => Math.max(header.length, ...body.map((line) => (line[column] ?? '').length)));
  const format = (cells: string[]) => cells.map((cell, column) => cell.padEnd(widths[column]!)).join(' | ');
  return [format(headers), widths.map((width) => '-'.repeat(width)).join('-+-'), ...body.map(format)].join('\n');
}

/** The two documents side by side: issue #17's targets first, then every figure. */
export function sideBySide({ before, after, labels = ['before', 'after'] }: { before: Record<string, Json>; after: Record<string, Json>; labels?: [string, string] }): string {
  const out: string[] = [];
  const targetsOf = (document: Record<string, Json>) => (Array.isArray(document.targets) ? (document.targets as unknown as TargetEntry[]) : []);
  const targetKey = (entry: TargetEntry) => `${entry.name} — ${entry.source}`;
  const beforeTargets = new Map(targetsOf(before).map((entry) => [targetKey(entry), entry]));
  const afterTargets = new Map(targetsOf(after).map((entry) => [targetKey(entry), entry]));
  const targetKeys = [...new Set([...afterTargets.keys(), ...beforeTargets.keys()])];
  if (targetKeys.length > 0) {
    const cell = (entry: TargetEntry | undefined) =>
      !entry || entry.value === null ? '—' : `${show(entry.value)} ${entry.unit} (${entry.met === null ? 'not measured' : entry.met ? 'met' : 'not met'})`;
    const body = targetKeys.map((key) => {
      const entry = afterTargets.get(key) ?? beforeTargets.get(key)!;
      return [`${entry.name} ${entry.target}`.trim(), entry.source, cell(beforeTargets.get(key)), cell(afterTargets.get(key))];
    });
    out.push('Targets (issue #17)', table(['target', 'measured in', labels[0], labels[1]], body), '');
  }
  const beforeFigures = figures(before);
  const afterFigures = figures(after);
  const keys = [...new Set([...afterFigures.keys(), ...beforeFigures.keys()])];
  out.push(
    'Figures',
    table(
      ['figure', labels[0], labels[1], 'change'],
      keys.map((key) => [key, show(beforeFigures.get(key)), show(afterFigures.get(key)), change(beforeFigures.get(key), afterFigures.get(key))]),
    ),
  );
  return out.join('\n');
}

function readJson(path: string): Record<string, Json> {
  return JSON.parse(readFileSync(path, 'utf8')) as Record<string, Json>;
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    options: {
      before: { type: 'string' },
      after: { type: 'string', default: '.' },
      out: { type: 'string' },
      keep: { type: 'boolean', default: false },
      print: { type: 'boolean', default: false },
    },
    allowPositionals: true,
  });
  if (values.print) {
    const [beforePath, afterPath] = positionals;
    if (!beforePath || !afterPath) throw new Error(USAGE);
    process.stdout.write(`${sideBySide({ before: readJson(beforePath), after: readJson(afterPath), labels: [beforePath, afterPath] })}\n`);
    return;
  }
  if (!values.before) throw new Error(USAGE);
  const outDir = resolve(values.out ?? mkdtempSync(join(tmpdir(), 'buildfleet-bench-compare-')));
  const beforePath = await benchOf({ revision: values.before, label: 'before', outDir, keep: values.keep });
  const afterPath = await benchOf({ revision: values.after, label: 'after', outDir, keep: values.keep });
  const labels: [string, string] = [`before (${values.before})`, `after (${values.after === '.' ? 'checkout' : values.after})`];
  process.stdout.write(`\n${sideBySide({ before: readJson(beforePath), after: readJson(afterPath), labels })}\n`);
  process.stdout.write(`\nlatest.json of each side: ${beforePath}, ${afterPath}\n`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
