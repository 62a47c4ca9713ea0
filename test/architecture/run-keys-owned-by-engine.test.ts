// A run's keys are the run engine's alone (issue #32: "no other folder touches a run's keys"):
// production code outside src/engine/ names none of them. The index exports KeySpace, whose
// fleet-wide keys (queues, the kill switch's scopes, API keys, tenants' windows) other folders
// own; its per-run methods are for the engine, and this test finds a call of one anywhere else.
// (The per-run keys beyond KeySpace — the upstreams zset, the write journal, theme, assets,
// screenshots — are not exported by src/engine/index.ts at all: rule
// engine-imported-through-its-index keeps them in.) Parsed with the TypeScript compiler API, so
// comments and strings do not count and a call split over lines does.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

/** KeySpace's methods that name a key of one run (src/engine/keys.ts). */
const RUN_KEY_METHODS: ReadonlySet<string> = new Set(['run', 'messages', 'events', 'turn', 'results', 'files', 'deployments', 'trail']);

/** Every production module outside the engine: src/ and workers/, tests left out. */
function productionFilesOutsideEngine(): string[] {
  const walk = (folder: string): string[] =>
    readdirSync(join(ROOT, folder), { withFileTypes: true }).flatMap((entry) => {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) return path === join('src', 'engine') ? [] : walk(path);
      return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.type-test.ts') ? [path] : [];
    });
  return [...walk('src'), ...walk('workers')];
}

/** A run key spelled out by hand: KeySpace's layout (`<prefix>:run:{<runId>}`) in a string. */
const SPELLED_RUN_KEY = /:run:\{/;

/** `<…>keys.run(…)`-shaped calls in one module's source (the receiver's last name is `keys`), and
 * strings or templates that spell a run's key out by hand. */
export function runKeyCalls(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && RUN_KEY_METHODS.has(node.expression.name.text)) {
      const receiver = node.expression.expression;
      const receiverName = ts.isPropertyAccessExpression(receiver) ? receiver.name.text : ts.isIdentifier(receiver) ? receiver.text : '';
      if (receiverName === 'keys') found.push(`${fileName}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1} ${node.getText(source)}`);
    }
    const literal = ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node);
    if (literal && SPELLED_RUN_KEY.test(node.text)) found.push(`${fileName}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1} ${node.getText(source)}`);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe("a run's keys", () => {
  it('are named by no production module outside src/engine/', () => {
    const calls = productionFilesOutsideEngine().flatMap((path) => runKeyCalls(relative(ROOT, join(ROOT, path)), readFileSync(join(ROOT, path), 'utf8')));
    expect(calls).toEqual([]);
  });

  it('are found however the call is written, and only in code', () => {
    const sample = [
      '// keys.run(runId) in a comment',
      "const text = 'keys.events(runId)';",
      'await redis.hgetall(fleet.store.keys.run(runId));',
      'const stream = keys',
      '  .events(runId);',
      'const queue = keys.killSwitch();',
      'await redis.exists(`${prefix}:run:{${id}}`);',
    ].join('\n');
    expect(runKeyCalls('sample.ts', sample)).toEqual(['sample.ts:3 fleet.store.keys.run(runId)', 'sample.ts:4 keys\n  .events(runId)', 'sample.ts:7 }:run:{${']);
  });
});
