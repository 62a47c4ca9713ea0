#!/usr/bin/env node
// Builds the run console's browser assets (console/ → dist/console/): esbuild bundles the Preact +
// htm app into one ES module and copies the page and the stylesheet beside it. `npm run build`
// runs it for the image; a console started from sources (tsx) runs it itself when the assets are
// missing or older than their sources (src/console/console-assets.ts), so dev, the demo and the
// tests never serve a stale build. Plain Node and esbuild only: no TypeScript loader needed.
//
// Each file is written under a temporary name and renamed into place, index.html last, so a
// console reading the folder while another process rebuilds it sees whole files only.
import { copyFileSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const sources = join(root, 'console');
// `--out DIR`: another build's dist/console (test/deploy/support/compiled-build.ts lays out an image).
const outFlag = process.argv.indexOf('--out');
const output = outFlag > 0 && process.argv[outFlag + 1] ? process.argv[outFlag + 1] : join(root, 'dist', 'console');

/** Writes bytes to `name` in the output folder through a temporary file and a rename. */
function writeAtomically(name, contents) {
  const temporary = join(output, `.${name}.${process.pid}.tmp`);
  writeFileSync(temporary, contents);
  renameSync(temporary, join(output, name));
}

mkdirSync(output, { recursive: true });
const result = await build({
  entryPoints: [join(sources, 'src', 'main.js')],
  bundle: true,
  format: 'esm',
  // Browsers of the last few years; the console uses nothing newer than ES2020.
  target: ['es2020'],
  minify: true,
  // Shipped beside the bundle so a stack trace in the browser names the source line.
  sourcemap: 'external',
  legalComments: 'linked',
  outfile: join(output, 'console.js'),
  write: false,
  logLevel: 'warning',
});
for (const file of result.outputFiles) writeAtomically(file.path.slice(output.length + 1), file.contents);
const stylesheet = join(output, `.console.css.${process.pid}.tmp`);
copyFileSync(join(sources, 'src', 'console.css'), stylesheet);
renameSync(stylesheet, join(output, 'console.css'));
// uPlot's stylesheet (the overview's charts, console/src/overview-chart.js), served as it ships.
const chartStylesheet = join(output, `.uplot.css.${process.pid}.tmp`);
copyFileSync(join(root, 'node_modules', 'uplot', 'dist', 'uPlot.min.css'), chartStylesheet);
renameSync(chartStylesheet, join(output, 'uplot.css'));
const page = join(output, `.index.html.${process.pid}.tmp`);
copyFileSync(join(sources, 'index.html'), page);
renameSync(page, join(output, 'index.html'));
if (!process.argv.includes('--quiet')) console.log(`[build-console] ${output}`);
