// The dependency rules of .dependency-cruiser.cjs and .dependency-cruiser-tests.cjs, run by
// dependency-cruiser's own API over small trees written for each case: each rule must catch the
// import it names and let the allowed ones through. (The repository itself is checked by
// scripts/check-dependencies.mjs in `npm test`; a rule that cannot fire would pass there too.)
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import { afterEach, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

const trees: string[] = [];
afterEach(() => {
  for (const tree of trees.splice(0)) rmSync(tree, { recursive: true, force: true });
});

/** Writes the files (path → source) into a fresh tree and returns the violations each pass finds,
 * as `rule: from → to` lines. */
async function violationsIn(files: Record<string, string>): Promise<{ production: string[]; tests: string[] }> {
  const tree = mkdtempSync(join(tmpdir(), 'buildfleet-depcheck-'));
  trees.push(tree);
  // The repository's packages, so `zod` resolves as it does in src/.
  symlinkSync(join(ROOT, 'node_modules'), join(tree, 'node_modules'), 'dir');
  writeFileSync(join(tree, 'package.json'), JSON.stringify({ type: 'module', dependencies: { zod: '*' } }));
  for (const [path, source] of Object.entries(files)) {
    mkdirSync(dirname(join(tree, path)), { recursive: true });
    writeFileSync(join(tree, path), source);
  }
  const run = async (config: string, paths: string[]) => {
    const options = await extractDepcruiseOptions(join(ROOT, config));
    const existing = paths.filter((path) => Object.keys(files).some((file) => file.startsWith(`${path}/`)));
    const result = await cruise(existing, { ...options, baseDir: tree });
    const output = result.output as ICruiseResult;
    return output.summary.violations.map((violation) => `${violation.rule.name}: ${violation.from} → ${violation.to}`).sort();
  };
  return {
    production: await run('.dependency-cruiser.cjs', ['src', 'workers']),
    tests: await run('.dependency-cruiser-tests.cjs', ['src', 'workers', 'test', 'bench', 'scripts']),
  };
}

const importing = (...specifiers: string[]) => `${specifiers.map((specifier, index) => `import * as m${index} from '${specifier}';`).join('\n')}\nexport const value = 1;\n`;

describe('the layer rules', () => {
  it('let a module import its own layer and the layers below', async () => {
    const { production, tests } = await violationsIn({
      'src/domain/profile.ts': importing('zod'),
      'src/config.ts': importing('./domain/profile.js'),
      'src/engine/run-engine.ts': importing('../domain/profile.js', '../config.js'),
      'src/engine/index.ts': importing('./run-engine.js'),
      'src/tools/tool-definitions.ts': importing('../domain/profile.js'),
      'src/agent/run-model-turn.ts': importing('../tools/tool-definitions.js', '../engine/index.js'),
      'src/workers/model-worker.ts': importing('../agent/run-model-turn.js'),
      'src/fleet/start-roles.ts': importing('../workers/model-worker.js'),
      'src/cli/run-cli.ts': importing('../fleet/start-roles.js'),
      'src/sim/main.ts': importing('../domain/profile.js'),
    });
    expect(production).toEqual([]);
    expect(tests).toEqual([]);
  });

  it('refuse an import of a higher layer, naming the layer', async () => {
    const { production } = await violationsIn({
      'src/domain/profile.ts': importing('../agent/turn.js'),
      'src/agent/turn.ts': importing('../fleet/context.js'),
      'src/fleet/context.ts': 'export const context = 1;\n',
    });
    expect(production).toEqual([
      'layer-agent-imports-no-higher-layer: src/agent/turn.ts → src/fleet/context.ts',
      'layer-domain-imports-no-higher-layer: src/domain/profile.ts → src/agent/turn.ts',
    ]);
  });

  it('refuse a Node built-in or another package in the domain', async () => {
    const { production } = await violationsIn({ 'src/domain/ids.ts': importing('node:crypto', 'zod') });
    expect(production).toEqual(['domain-imports-only-zod: src/domain/ids.ts → crypto']);
  });

  it('refuse a folder no layer names', async () => {
    const { production } = await violationsIn({
      'src/domain/profile.ts': 'export const phase = 1;\n',
      'src/newfolder/thing.ts': importing('../domain/profile.js'),
    });
    expect(production).toEqual(['every-module-has-a-layer: src/newfolder/thing.ts → src/domain/profile.ts']);
  });

  it('refuse folders of one layer that import each other', async () => {
    const { production } = await violationsIn({
      'src/model/client.ts': importing('../tools/catalog.js'),
      'src/tools/catalog.ts': 'export const value = 1;\n',
      'src/tools/run.ts': importing('../model/client.js'),
    });
    expect(production.filter((line) => line.startsWith('no-folder-cycles'))).not.toEqual([]);
    expect(production.filter((line) => !line.startsWith('no-folder-cycles'))).toEqual([]);
  });

  it('refuse a module cycle, in tests as well', async () => {
    const { tests } = await violationsIn({
      'test/support/a.ts': importing('./b.js'),
      'test/support/b.ts': importing('./a.js'),
    });
    // Reported once per cycle, from the module the cruise met first.
    expect(tests).toEqual(['no-module-cycles: test/support/a.ts → test/support/b.ts']);
  });
});

describe('the tool definition/implementation split', () => {
  it('refuses the agent an import of a tool implementation', async () => {
    const { production } = await violationsIn({
      'src/agent/turn.ts': importing('../tools/tool-implementations.js'),
      'src/tools/tool-implementations.ts': 'export const tools = 1;\n',
    });
    expect(production).toEqual(['agent-imports-tool-definitions-only: src/agent/turn.ts → src/tools/tool-implementations.ts']);
  });

  it('refuses the model worker any path to a tool implementation, however indirect', async () => {
    const { production } = await violationsIn({
      'src/workers/model-worker.ts': importing('../fleet/helper.js'),
      'src/fleet/helper.ts': importing('../tools/ops/screenshot.js'),
      'src/tools/ops/screenshot.ts': 'export const screenshot = 1;\n',
    });
    expect(production).toContain('model-worker-loads-no-tool-implementation: src/workers/model-worker.ts → src/tools/ops/screenshot.ts');
  });
});

describe("the engine's public face", () => {
  it('refuses an import of the engine past its index from outside it, in tests as well', async () => {
    const { production, tests } = await violationsIn({
      'src/engine/keys.ts': 'export const keys = 1;\n',
      'src/engine/run-engine.ts': importing('./keys.js'),
      'src/engine/run-engine.test.ts': importing('./keys.js'),
      'src/engine/index.ts': importing('./run-engine.js'),
      'src/api/server.ts': importing('../engine/index.js', '../engine/keys.js'),
      'test/integration/runs.test.ts': importing('../../src/engine/index.js', '../../src/engine/run-engine.js'),
    });
    expect(production).toEqual(['engine-imported-through-its-index: src/api/server.ts → src/engine/keys.ts']);
    expect(tests).toEqual([
      'engine-imported-through-its-index: src/api/server.ts → src/engine/keys.ts',
      'engine-imported-through-its-index: test/integration/runs.test.ts → src/engine/run-engine.ts',
    ]);
  });
});

describe('the simulator and the build', () => {
  it('refuses the simulator anything of the fleet but the domain and the parser', async () => {
    const { production } = await violationsIn({
      'src/sim/server.ts': importing('../domain/profile.js', '../parsing/index.js', '../model/client.js'),
      'src/domain/profile.ts': 'export const phase = 1;\n',
      'src/parsing/index.ts': importing('../domain/profile.js'),
      'src/model/client.ts': importing('../domain/profile.js'),
    });
    expect(production).toEqual(['simulator-imports-domain-and-parsing-only: src/sim/server.ts → src/model/client.ts']);
  });

  it('refuses production code an import of a test harness, and any import that resolves to nothing', async () => {
    const { production, tests } = await violationsIn({
      'src/api/server.ts': importing('./testing/harness.js', './missing.js'),
      'src/api/testing/harness.ts': 'export const harness = 1;\n',
    });
    expect(production).toEqual(['no-unresolvable-imports: src/api/server.ts → ./missing.js']);
    expect(tests).toEqual([
      'no-unresolvable-imports: src/api/server.ts → ./missing.js',
      'production-imports-no-test-support: src/api/server.ts → src/api/testing/harness.ts',
    ]);
  });
});
