#!/usr/bin/env node
// The committed package-lock.json as the image and a fresh clone use it: `npm ci --dry-run` must
// accept it under every npm major we support — npm 10 (Node 20's) and npm 11 (Node 24's, the
// image's). npm 11 refuses a lock file that lacks other platforms' optional packages
// (`Missing: @rollup/rollup-… from lock file`), which npm 10 accepts, so checking with the local
// npm alone lets a lock file that breaks the image land. Each major comes from the npm registry
// through npx (cached after the first run). Checked in a scratch folder on the files git holds, so
// a local `npm install` that rewrote them does not hide the problem. Plain Node, no dependencies.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const NPM_MAJORS = ['10', '11'];

function committed(path) {
  try {
    return execFileSync('git', ['show', `HEAD:${path}`], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return null;
  }
}

const manifest = committed('package.json');
const lock = committed('package-lock.json');
if (manifest === null || lock === null) {
  console.log('[lock] not a git checkout with a committed package-lock.json: lock check skipped');
  process.exit(0);
}
const scratch = mkdtempSync(join(tmpdir(), 'buildfleet-lock-check-'));
let failed = false;
try {
  writeFileSync(join(scratch, 'package.json'), manifest);
  writeFileSync(join(scratch, 'package-lock.json'), lock);
  for (const major of NPM_MAJORS) {
    const result = spawnSync('npx', ['-y', `npm@${major}`, 'ci', '--dry-run', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: scratch, encoding: 'utf8', timeout: 300_000 });
    if (result.status === 0) {
      console.log(`[lock] npm ${major}: npm ci accepts package-lock.json`);
      continue;
    }
    failed = true;
    const reason = `${result.stderr ?? ''}${result.stdout ?? ''}`.split('\n').filter((line) => /npm (error|ERR!)/.test(line)).slice(0, 6).join('\n');
    console.error(`[lock] npm ${major}: npm ci REFUSES package-lock.json${result.error ? ` (${result.error.message})` : ''}\n${reason}`);
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
if (failed) {
  console.error('[lock] regenerate it with `npm install --package-lock-only` (it adds the missing entries, keeping the pinned versions), review the diff and commit it');
  process.exit(1);
}
