// Builds the project's Dockerfile as written (only NODE_IMAGE is passed) from a copy of the files
// git tracks, so nothing untracked on this machine (node_modules, dist, scratch files) can reach
// the build context, and the context is what a fresh clone would send: .dockerignore still applies.
// `--format docker`: podman's default OCI format has no HEALTHCHECK field and drops it.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PODMAN_FLAGS, podmanOk, runCommand, streamCommand } from './image-podman.js';

export interface BuiltImage {
  tag: string;
  /** podman build from start to exit. */
  buildSeconds: number;
  /** From start to the image tagged (before podman's clean-up of the build's containers). */
  taggedSeconds: number;
  sizeBytes: number;
  healthcheck: string[] | null;
  user: string;
  stopSignal: string;
}

async function copyTrackedFiles({ projectRoot, into }: { projectRoot: string; into: string }): Promise<void> {
  // Tracked files as they are in the work tree (edits not yet committed included); deleted ones skipped.
  const result = await runCommand({
    program: 'sh',
    args: ['-c', 'git -C "$1" ls-files -z | (cd "$1" && tar --null --ignore-failed-read -T - -cf -) | tar -C "$2" -xf -', 'copy', projectRoot, into],
  });
  if (result.code !== 0) throw new Error(`copying the tracked files failed: ${result.stderr.trim().slice(-1000)}`);
}

/** Builds `tag` from the Dockerfile on `baseImage`; the build's output goes to `log`. */
export async function buildProjectImage({
  projectRoot,
  baseImage,
  tag,
  log,
}: {
  projectRoot: string;
  baseImage: string;
  tag: string;
  log: (line: string) => void;
}): Promise<BuiltImage> {
  const context = await mkdtemp(join(tmpdir(), 'buildfleet-image-context-'));
  try {
    await copyTrackedFiles({ projectRoot, into: context });
    const started = Date.now();
    let taggedAt: number | null = null;
    const code = await streamCommand({
      program: 'podman',
      args: [...PODMAN_FLAGS, 'build', '--format=docker', '--network=host', '--pull=never', `--build-arg=NODE_IMAGE=${baseImage}`, `--tag=${tag}`, context],
      log: (line) => {
        if (line.startsWith('Successfully tagged')) taggedAt = Date.now();
        log(line);
      },
    });
    if (code !== 0) throw new Error(`podman build exited ${code}`);
    const buildSeconds = (Date.now() - started) / 1000;
    // On this machine podman spends minutes after tagging removing the build's intermediate
    // containers (the build stage's full node_modules); shown apart so the build itself is visible.
    const taggedSeconds = ((taggedAt ?? Date.now()) - started) / 1000;
    const inspected = JSON.parse(await podmanOk(['image', 'inspect', tag])) as Array<{
      Size: number;
      Config: { User?: string; StopSignal?: string; Healthcheck?: { Test?: string[] } };
      /** Where podman reports a docker-format image's HEALTHCHECK (beside Config, not in it). */
      Healthcheck?: { Test?: string[] };
    }>;
    const image = inspected[0]!;
    return {
      tag,
      buildSeconds,
      taggedSeconds,
      sizeBytes: image.Size,
      healthcheck: image.Healthcheck?.Test ?? image.Config.Healthcheck?.Test ?? null,
      user: image.Config.User ?? '',
      stopSignal: image.Config.StopSignal ?? '',
    };
  } finally {
    await rm(context, { recursive: true, force: true });
  }
}

/** Development-only packages whose presence in the runtime image would mean devDependencies leaked.
 * Not @types: production packages depend on some (node-pg-migrate on @types/pg). */
export const DEV_ONLY_PACKAGES = [
  'vitest',
  'typescript',
  'esbuild',
  '@esbuild',
  'tsx',
  'dependency-cruiser',
  'kubernetes-models',
  '@kubernetes-models',
  'preact',
  'htm',
  'prettier',
] as const;

export interface ImageContents {
  /** Entries of /app. */
  app: string[];
  /** Problems found: files or packages the roles never load. */
  problems: string[];
  distBytes: number;
  nodeModulesBytes: number;
}

/** Lists what the runtime image holds under /app and flags tests, sources and dev packages. */
export async function inspectImageContents(tag: string): Promise<ImageContents> {
  const script = [
    'ls -A /app',
    'echo ---',
    'ls -A /app/node_modules',
    'echo ---',
    'find /app/dist -name "*.test.*" -o -path "*/testing/*" -o -path "/app/dist/test" -o -path "/app/dist/bench" | head -20',
    'echo ---',
    'du -sb /app/dist /app/node_modules | cut -f1',
  ].join('; ');
  const output = await podmanOk(['run', '--rm', '--network=none', '--entrypoint=sh', tag, '-c', script]);
  const [appPart = '', modulesPart = '', testsPart = '', sizesPart = ''] = output.split('---\n');
  const app = appPart.trim().split('\n').filter(Boolean);
  const modules = new Set(modulesPart.trim().split('\n').filter(Boolean));
  const problems: string[] = [];
  const unexpected = app.filter((entry) => !['dist', 'node_modules', 'package.json'].includes(entry));
  if (unexpected.length > 0) problems.push(`/app holds ${unexpected.join(', ')}`);
  for (const name of DEV_ONLY_PACKAGES) if (modules.has(name)) problems.push(`node_modules holds the dev-only ${name}`);
  for (const path of testsPart.trim().split('\n').filter(Boolean)) problems.push(`test file ${path}`);
  const [distBytes = 0, nodeModulesBytes = 0] = sizesPart.trim().split('\n').map(Number);
  return { app, problems, distBytes, nodeModulesBytes };
}
