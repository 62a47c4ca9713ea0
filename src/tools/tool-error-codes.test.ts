import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { TOOL_ERROR_CODES } from './tool-error-codes.js';

const sourceRoot = fileURLToPath(new URL('..', import.meta.url));

function sourceFiles(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const path = join(directory, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [path] : [];
  });
}

describe('TOOL_ERROR_CODES', () => {
  const thrown = new Set<string>();
  for (const path of [...sourceFiles(join(sourceRoot, 'tools')), ...sourceFiles(join(sourceRoot, 'safety'))]) {
    for (const match of readFileSync(path, 'utf8').matchAll(/new ToolError\(\s*'([a-z_]+)'/g)) thrown.add(match[1] ?? '');
    // write-workspace-file maps script outcomes to codes through a switch over the same names.
  }

  it('documents every code a tool throws', () => {
    for (const code of thrown) expect(TOOL_ERROR_CODES, code).toHaveProperty(code);
  });

  it('lists no code that nothing throws', () => {
    for (const code of Object.keys(TOOL_ERROR_CODES)) expect(thrown, code).toContain(code);
  });
});
