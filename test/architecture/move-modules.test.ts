// scripts/move-modules.mjs over a small tree holding a few of the paths it moves: it moves them,
// rewrites their importers, leaves a shim only where a skipped file still imports an old path,
// splits tool-catalog imports, and a second run changes nothing.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const SCRIPT = join(import.meta.dirname, '..', '..', 'scripts', 'move-modules.mjs');

const trees: string[] = [];
afterEach(() => {
  for (const tree of trees.splice(0)) rmSync(tree, { recursive: true, force: true });
});

/** A tree (not a git repository: the script renames without git there) with the script in it. */
function treeWith(files: Record<string, string>): { read(path: string): string; exists(path: string): boolean; run(...args: string[]): string } {
  const tree = mkdtempSync(join(tmpdir(), 'buildfleet-move-modules-'));
  trees.push(tree);
  mkdirSync(join(tree, 'scripts'));
  copyFileSync(SCRIPT, join(tree, 'scripts', 'move-modules.mjs'));
  for (const [path, source] of Object.entries(files)) {
    mkdirSync(dirname(join(tree, path)), { recursive: true });
    writeFileSync(join(tree, path), source);
  }
  return {
    read: (path) => readFileSync(join(tree, path), 'utf8'),
    exists: (path) => existsSync(join(tree, path)),
    run: (...args) => execFileSync(process.execPath, ['scripts/move-modules.mjs', ...args], { cwd: tree, encoding: 'utf8' }),
  };
}

describe('move-modules', () => {
  it('moves a module, re-anchors its own imports and rewrites its importers', () => {
    const tree = treeWith({
      'src/domain/profile.ts': "import { helper } from './helper.js';\nexport const phase = helper;\n",
      'src/agent/helper.ts': 'export const helper = 1;\n',
      'src/sim/policy.ts': "import { phase } from '../agent/profile.js';\n// see src/domain/profile.ts\nexport const p = phase;\n",
      'test/support/fleet.ts': "const profile = await import('../../src/domain/profile.js');\nexport { profile };\n",
    });
    tree.run();
    expect(tree.exists('src/domain/profile.ts')).toBe(false);
    expect(tree.read('src/domain/profile.ts')).toContain("from '../agent/helper.js'");
    expect(tree.read('src/sim/policy.ts')).toBe("import { phase } from '../domain/profile.js';\n// see src/domain/profile.ts\nexport const p = phase;\n");
    expect(tree.read('test/support/fleet.ts')).toContain("import('../../src/domain/profile.js')");
    expect(tree.run()).toBe('');
  });

  it('leaves skipped files and their modules alone, with a shim at each old path they import, gone once they migrate', () => {
    const tree = treeWith({
      'src/domain/profile.ts': 'export const phase = 1;\n',
      'src/workers/model-worker.ts': "import { phase } from '../agent/profile.js';\nexport const worker = phase;\n",
      'src/fleet/start-roles.ts': "import { worker } from '../queues/model-worker.js';\nexport const roles = worker;\n",
    });
    tree.run('--skip=src/workers/model-worker.ts');
    expect(tree.read('src/workers/model-worker.ts')).toContain("from '../agent/profile.js'");
    expect(tree.read('src/domain/profile.ts')).toBe("// moved: shim until src/workers/model-worker.ts is migrated\nexport * from '../domain/profile.js';\n");
    // The skipped module is not moved, so nothing is pointed at its new path yet.
    expect(tree.read('src/fleet/start-roles.ts')).toContain("from '../queues/model-worker.js'");

    tree.run();
    expect(tree.exists('src/domain/profile.ts')).toBe(false);
    expect(tree.read('src/workers/model-worker.ts')).toContain("from '../domain/profile.js'");
    expect(tree.read('src/fleet/start-roles.ts')).toContain("from '../workers/model-worker.js'");
  });

  it('splits an import of the tool catalog into definitions and implementations', () => {
    const tree = treeWith({
      'src/tools/tool-catalog.ts': "// moved: shim\nexport * from './tool-definitions.js';\n",
      'src/tools/run-tool-job.ts': "import { toolDefinitions, type AnthropicTool } from './tool-catalog.js';\nexport const tools = toolDefinitions;\n",
    });
    tree.run();
    expect(tree.read('src/tools/run-tool-job.ts')).toBe(
      "import { toolImplementations as toolDefinitions } from './tool-implementations.js';\nimport { type AnthropicTool } from './tool-definitions.js';\nexport const tools = toolDefinitions;\n",
    );
    expect(tree.exists('src/tools/tool-catalog.ts')).toBe(false);
  });
});
