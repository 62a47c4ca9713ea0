// Keeps the hot path a sequence of small named steps (issue #32): every function, arrow function,
// method and accessor in the modules a model turn or a tool call runs through fits in
// MAX_FUNCTION_LINES lines, nested functions counted inside their parent as well as on their own.
// Parsed with the TypeScript compiler API, so a long function is found however it is written.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

/** Past this, a step is doing more than one thing. */
const MAX_FUNCTION_LINES = 80;

/** The hot path: the whole turn layer (src/agent/: the turn, its steps, the stop-reason handler,
 * decideModelRetry) and the tool call (run-tool-job*, its steps under src/tools/tool-job/,
 * classifyToolFailure, decideToolFailure). */
function hotPathFiles(): string[] {
  const inFolder = (folder: string, keep: (name: string) => boolean) =>
    readdirSync(join(ROOT, folder))
      .filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts') && keep(name))
      .map((name) => join(ROOT, folder, name));
  return [
    ...inFolder('src/agent', () => true),
    ...inFolder('src/tools', (name) => name.startsWith('run-tool-job') || name === 'decide-tool-failure.ts' || name === 'classify-tool-failure.ts'),
    ...inFolder('src/tools/tool-job', () => true),
  ];
}

interface FunctionLength {
  file: string;
  name: string;
  line: number;
  lines: number;
}

function nameOf(node: ts.Node, source: ts.SourceFile): string {
  if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isGetAccessor(node) || ts.isSetAccessor(node)) && node.name) return node.name.getText(source);
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  // An arrow or function expression takes the name it is bound to, or its caller's.
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) return parent.name.getText(source);
  if (ts.isCallExpression(parent)) return `(callback of ${parent.expression.getText(source).slice(0, 40)})`;
  return '(anonymous)';
}

/** Every function-like node of the file with its length in lines, first line to last. */
function functionLengths(file: string, text = readFileSync(file, 'utf8')): FunctionLength[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: FunctionLength[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      found.push({ file: relative(ROOT, file), name: nameOf(node, source), line: first + 1, lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The functions of `files` longer than `limit` lines, as `file:line name (n lines)`. */
function overLimit(files: readonly string[], limit: number): string[] {
  return files.flatMap((file) => functionLengths(file).filter((fn) => fn.lines > limit).map((fn) => `${fn.file}:${fn.line} ${fn.name} (${fn.lines} lines)`));
}

describe('the hot path is made of small functions', () => {
  it('covers the turn, the stop-reason handler and the tool call', () => {
    const names = hotPathFiles().map((file) => relative(ROOT, file));
    for (const expected of ['src/agent/run-model-turn.ts', 'src/agent/stop-reason-handler.ts', 'src/agent/decide-model-retry.ts', 'src/tools/run-tool-job.ts', 'src/tools/decide-tool-failure.ts']) {
      expect(names).toContain(expected);
    }
  });

  it(`has no function over ${MAX_FUNCTION_LINES} lines`, () => {
    expect(overLimit(hotPathFiles(), MAX_FUNCTION_LINES)).toEqual([]);
  });

  it('names a function over the limit (the check can fail)', () => {
    const long = `export function long() {\n${'  call();\n'.repeat(MAX_FUNCTION_LINES)}}\nconst short = () => 1;\n`;
    const lengths = functionLengths(join(ROOT, 'src/agent/example.ts'), long);
    expect(lengths).toEqual([
      { file: 'src/agent/example.ts', name: 'long', line: 1, lines: MAX_FUNCTION_LINES + 2 },
      { file: 'src/agent/example.ts', name: 'short', line: MAX_FUNCTION_LINES + 3, lines: 1 },
    ]);
  });
});
