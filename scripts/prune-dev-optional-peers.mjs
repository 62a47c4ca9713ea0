#!/usr/bin/env node
// Run in the image's deps stage after `npm ci --omit=dev`: removes the packages that are in
// node_modules only because a production package names them as an *optional peer* and the project
// has them as devDependencies. npm flags those `devOptional` and `--omit=dev` keeps them, so
// TypeScript (valibot's optional peer, through Bull Board) and @types/pg (node-pg-migrate's) landed
// in the runtime image: ~23 MB nothing loads at run time (an optional peer is for type checking).
// Real optional dependencies (msgpackr's prebuilt native addon) are flagged `optional`, not
// `devOptional`, and stay. Plain Node, no dependencies. Prints what it removed.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Lock-file paths of packages present only as dev dependencies that production packages name as
 * optional peers. */
export function devOptionalPeers(lock) {
  const optionalPeers = new Set();
  for (const entry of Object.values(lock.packages ?? {})) {
    for (const [name, meta] of Object.entries(entry.peerDependenciesMeta ?? {})) if (meta?.optional) optionalPeers.add(name);
  }
  return Object.entries(lock.packages ?? {})
    .filter(([path, entry]) => entry.devOptional === true && optionalPeers.has(path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length)))
    .map(([path]) => path);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const root = process.cwd();
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));
  for (const path of devOptionalPeers(lock)) {
    rmSync(join(root, path), { recursive: true, force: true });
    console.log(`removed ${path} (a devDependency that production packages name only as an optional peer)`);
  }
}
