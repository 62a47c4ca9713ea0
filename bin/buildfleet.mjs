#!/usr/bin/env node
// `buildfleet` on PATH (npm link / npx): runs the TypeScript CLI through tsx.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const result = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'src', 'cli.ts'), ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(result.status ?? 1);
