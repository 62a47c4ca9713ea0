// The console's built browser assets (scripts/build-console.mjs writes them to dist/console/ at the
// package root), read into memory once: a handful of small files. Running from sources (tsx: dev,
// the demo, the tests) the console builds them itself when they are missing or older than
// console/, so nobody serves a stale bundle; a compiled console (the image) only reads them, and
// refuses to start without them, naming `npm run build`.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface ConsoleAsset {
  body: Buffer;
  contentType: string;
}

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

/** The nearest folder above this module holding package.json: the repository, or /app in the image. */
function packageRoot(): string {
  let folder = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(folder, 'package.json'))) {
    const parent = dirname(folder);
    if (parent === folder) throw new Error(`no package.json above ${fileURLToPath(import.meta.url)}`);
    folder = parent;
  }
  return folder;
}

/** Newest modification time of any file under `folder`. */
function newestChange(folder: string): number {
  let newest = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestChange(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** Builds the assets when running from sources and they are missing or stale. */
function buildWhenStale(root: string, output: string): void {
  const sources = join(root, 'console');
  // A compiled module (.js) is the image or `npm run build`: its assets were built with it.
  if (!fileURLToPath(import.meta.url).endsWith('.ts') || !existsSync(sources)) return;
  const page = join(output, 'index.html');
  // The bundle also takes the fleet's vocabularies (statuses, event names) from src/domain/.
  const newest = Math.max(
    newestChange(sources),
    newestChange(join(root, 'src', 'domain')),
    statSync(join(root, 'src', 'engine', 'resumable-run-errors.ts')).mtimeMs,
    // And its packages (Preact, htm, uPlot and its stylesheet): a changed lock may have changed them.
    existsSync(join(root, 'package-lock.json')) ? statSync(join(root, 'package-lock.json')).mtimeMs : 0,
  );
  if (existsSync(page) && statSync(page).mtimeMs >= newest) return;
  // A child process, not an import: the build needs esbuild (a devDependency) and no TypeScript.
  const built = spawnSync(process.execPath, [join(root, 'scripts', 'build-console.mjs'), '--quiet'], { cwd: root, encoding: 'utf8' });
  if (built.status !== 0)
    throw new Error(`building the console's assets failed (node scripts/build-console.mjs): ${built.stderr || built.error?.message || `exit ${built.status}`}`);
}

/** The assets by file name (index.html, console.js, console.css …). */
export function loadConsoleAssets(): Map<string, ConsoleAsset> {
  const root = packageRoot();
  const output = join(root, 'dist', 'console');
  buildWhenStale(root, output);
  if (!existsSync(join(output, 'index.html'))) {
    throw new Error(
      `the console's assets are missing from ${output}: run \`npm run build\` (or node scripts/build-console.mjs), or leave BUILDFLEET_CONSOLE_PORT unset`,
    );
  }
  const assets = new Map<string, ConsoleAsset>();
  for (const name of readdirSync(output)) {
    const contentType = CONTENT_TYPES[extname(name)];
    // Skips another process's half-written temporary files (they start with a dot).
    if (!contentType || name.startsWith('.')) continue;
    assets.set(name, { body: readFileSync(join(output, name)), contentType });
  }
  return assets;
}
