// The image's deps stage prunes devDependencies that `npm ci --omit=dev` keeps as optional peers.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/cli/spawn-role.js';
// @ts-expect-error plain ESM helper the Dockerfile runs
import { devOptionalPeers } from '../../scripts/prune-dev-optional-peers.mjs';

const lock = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { devOptional?: boolean; optional?: boolean }> };
const pruned = devOptionalPeers(lock) as string[];

describe('scripts/prune-dev-optional-peers.mjs on the committed lock file', () => {
  it('removes only packages npm keeps as devOptional that some package names as an optional peer', () => {
    for (const path of pruned) expect(lock.packages[path]?.devOptional, path).toBe(true);
    if (lock.packages['node_modules/typescript']?.devOptional) expect(pruned).toContain('node_modules/typescript');
  });

  it('keeps real optional dependencies (prebuilt native addons) and every production package', () => {
    for (const path of pruned) expect(lock.packages[path]?.optional, path).not.toBe(true);
    expect(pruned.some((path) => path.includes('msgpackr-extract'))).toBe(false);
  });

  it('finds nothing in a lock without optional peers', () => {
    expect(devOptionalPeers({ packages: { '': {}, 'node_modules/typescript': { devOptional: true } } })).toEqual([]);
  });
});
