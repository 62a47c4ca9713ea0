#!/usr/bin/env node
// First step of `npm test`, `npm run demo` and `npm run bench` on a fresh clone: installs the
// npm dependencies when they are missing or stale, makes sure a redis-server binary and PostgreSQL exist, and
// (with --with-chromium, for `npm test`) that Chromium is installed.
// Plain Node with no dependencies, because it runs before any are installed.
import { execFileSync } from 'node:child_process';
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findRedisCli, findRedisServer } from './redis-binary.mjs';
import { findPostgresBinDir } from './postgres-binary.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function dependenciesAreCurrent() {
  const marker = join(root, 'node_modules', '.package-lock.json');
  if (!existsSync(marker)) return false;
  const lock = join(root, 'package-lock.json');
  return !existsSync(lock) || statSync(marker).mtimeMs >= statSync(lock).mtimeMs;
}

if (!dependenciesAreCurrent()) {
  // `npm ci` installs exactly the reviewed lock file and never rewrites it. A refusal is a lock
  // file out of step with package.json (or one an npm major cannot read): stop and say so, rather
  // than fall back to `npm install`, which rewrites package-lock.json and installs versions nobody
  // reviewed. `npm test` checks the lock under npm 10 and 11 (scripts/check-lock-file.mjs).
  console.error('[setup] installing npm dependencies (npm ci)');
  try {
    execFileSync('npm', ['ci', '--no-fund', '--no-audit'], { cwd: root, stdio: 'inherit' });
  } catch {
    console.error(
      '[setup] npm ci refused package-lock.json (see npm\'s message above): the lock file is out of step with package.json.\n' +
        '        Regenerate it with `npm install --package-lock-only`, review the diff, and commit it.',
    );
    process.exit(1);
  }
}

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/** Installs one Debian package with apt-get (root only); throws when apt-get fails. */
function aptInstall(pkg) {
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', pkg], { stdio: 'inherit', env });
}

// `npm test` passes --with-chromium: the screenshot tool's tests drive a real Chromium (Debian's
// `chromium`, the browser the tool worker uses), installed here like redis-server when running as
// root. The demo and the bench do not need it. Without it (not root, apt-get failed) those tests
// skip and print why; the rest of the suite runs either way.
if (process.argv.includes('--with-chromium')) ensureChromium();

function ensureChromium() {
  const configured = process.env.BUILDFLEET_CHROMIUM_PATH;
  const candidates = configured ? [configured] : ['/usr/bin/chromium', '/usr/bin/chromium-browser'];
  const isExecutable = (path) => {
    try {
      accessSync(path, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  if (candidates.some(isExecutable)) return;
  const skipped = 'the tests that drive a real Chromium will be skipped';
  if (configured || !isRoot) {
    console.error(
      `[setup] Chromium was not found at ${candidates.join(' or ')}; ${skipped}.\n` +
        '        Install it with:  sudo apt-get install -y --no-install-recommends chromium',
    );
    return;
  }
  console.error('[setup] installing chromium with apt-get (for the screenshot tests)');
  try {
    aptInstall('chromium');
  } catch (error) {
    console.error(`[setup] apt-get could not install chromium (${error.message}); ${skipped}.`);
  }
}

ensurePostgres();

// PostgreSQL keeps run history (docs/history.md): `npm test` starts a private one from Debian's
// `postgresql` package, installed here like redis-server when running as root. Without it (not
// root, apt-get failed) the history tests fail naming DATABASE_URL; nothing else needs it yet.
function ensurePostgres() {
  if (process.env.DATABASE_URL || findPostgresBinDir()) return;
  if (!isRoot) {
    console.error(
      '[setup] PostgreSQL was not found and this user cannot install it.\n' +
        '        Install it with:  sudo apt-get install -y --no-install-recommends postgresql\n' +
        '        or point DATABASE_URL at a running PostgreSQL (postgres://user:password@host:5432/database).',
    );
    return;
  }
  console.error('[setup] installing postgresql with apt-get (run history)');
  try {
    aptInstall('postgresql');
  } catch (error) {
    console.error(`[setup] apt-get could not install postgresql (${error.message}); the history tests will fail.`);
  }
}

if (process.env.REDIS_URL) process.exit(0);

// redis-cli creates the local Redis Cluster of `npm test`'s cluster pass (src/dev/local-redis-cluster.ts);
// Debian's redis-server depends on redis-tools, which ships it, but a server found elsewhere may
// come without it.
if (findRedisServer() && !findRedisCli() && isRoot) {
  console.error('[setup] installing redis-tools (redis-cli) with apt-get');
  aptInstall('redis-tools');
}
if (findRedisServer()) process.exit(0);

if (!isRoot) {
  console.error(
    '[setup] redis-server was not found and this user cannot install it.\n' +
      '        Install it with:  sudo apt-get install -y redis-server\n' +
      '        or point REDIS_URL at a running Redis (redis://host:port).',
  );
  process.exit(1);
}
console.error('[setup] installing redis-server with apt-get');
aptInstall('redis-server');
if (!findRedisServer()) {
  console.error('[setup] apt-get finished but redis-server is still not on PATH');
  process.exit(1);
}
