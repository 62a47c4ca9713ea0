// The Node.js the image runs, for the test pass that runs on it (scripts/run-tests.ts): its major
// is read from the Dockerfile's `ARG NODE_IMAGE=node:<major>-…`, so the pass follows the image
// when the Dockerfile moves, and the binary comes from the npm registry (`npx -y node@<major>`, the
// `node` package's official build, cached by npx after the first run): a machine with another
// Node.js tests the image's runtime without a system install.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { dockerfileNodeMajor } from '../src/cli/image-base-image.js';

/** The major version of node in the Dockerfile's default NODE_IMAGE, e.g. 24 — read as the image
 * experiment reads it (src/cli/image-base-image.ts), so the two follow the same line. */
export function imageNodeMajor(root = process.cwd()): number {
  return dockerfileNodeMajor(readFileSync(join(root, 'Dockerfile'), 'utf8'));
}

/** The path of a node binary of `major` from the npm registry (fetched once through npx). */
export function registryNodeBinary(major: number): { path: string; version: string } {
  const path = execFileSync('npx', ['-y', `node@${major}`, '-p', 'process.execPath'], { encoding: 'utf8', timeout: 600_000, stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  const version = execFileSync(path, ['--version'], { encoding: 'utf8' }).trim();
  if (!version.startsWith(`v${major}.`)) throw new Error(`npx node@${major} gave ${version} (${path})`);
  return { path, version };
}
