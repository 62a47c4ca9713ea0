// Keeps production lines readable (issue #32: "a formatter or lint rule that keeps lines
// readable"): no line of production code — src/, workers/ and console/src/, tests left out — is
// longer than MAX_LINE_LENGTH characters. Prettier (.prettierrc.json, `npm run format`) wraps code
// at that width but leaves a long string literal or comment whole, so this test is what catches
// those: split a long string into a `'…' + '…'` concatenation (the value stays the same) and
// re-wrap a long comment.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

/** Prettier's printWidth: the two agree (a line Prettier writes always passes). */
const MAX_LINE_LENGTH = 160;

/** Production TypeScript: the folders Prettier formats (.prettierignore), tests left out. */
function productionFiles(): string[] {
  const walk = (folder: string): string[] =>
    readdirSync(join(ROOT, folder), { withFileTypes: true }).flatMap((entry) => {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) return walk(path);
      const typeScript = entry.name.endsWith('.ts') || entry.name.endsWith('.tsx');
      return typeScript && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.type-test.ts') ? [path] : [];
    });
  return [...walk('src'), ...walk('workers'), ...walk(join('console', 'src'))];
}

/** The lines of `text` longer than `limit` characters (code points, not bytes or UTF-16 units), as
 * `file:line (n characters)`. */
export function longLines(file: string, text: string, limit = MAX_LINE_LENGTH): string[] {
  return text.split('\n').flatMap((line, index) => {
    const length = [...line].length;
    return length > limit ? [`${file}:${index + 1} (${length} characters)`] : [];
  });
}

describe('production lines', () => {
  it('cover src, workers and console/src, tests left out', () => {
    const files = productionFiles();
    for (const expected of ['src/config.ts', 'workers/model-worker.ts', 'console/src/timeline-event-names.ts']) expect(files).toContain(expected);
    expect(files.filter((file) => file.endsWith('.test.ts') || file.endsWith('.type-test.ts'))).toEqual([]);
  });

  it(`are at most ${MAX_LINE_LENGTH} characters, Prettier's width`, () => {
    const prettier = JSON.parse(readFileSync(join(ROOT, '.prettierrc.json'), 'utf8')) as { printWidth?: number };
    expect(prettier.printWidth).toBe(MAX_LINE_LENGTH);
    expect(productionFiles().flatMap((file) => longLines(file, readFileSync(join(ROOT, file), 'utf8')))).toEqual([]);
  });

  it('names each line over the limit, a long string Prettier accepts included (the check can fail)', () => {
    const sample = [
      'const short = 1;',
      `const message = '${'a'.repeat(MAX_LINE_LENGTH)}';`,
      `// ${'b'.repeat(MAX_LINE_LENGTH - 3)}`,
      `const wide = '${'’'.repeat(MAX_LINE_LENGTH - 20)}';`,
    ].join('\n');
    expect(longLines('src/example.ts', sample)).toEqual([`src/example.ts:2 (${MAX_LINE_LENGTH + 19} characters)`]);
  });
});
