// The default SiteStore: a directory on a volume (BUILDFLEET_SITES_DIR). Layout (docs/sites.md#storage):
//
//   <root>/runs/<runId>/deployments/<deployId>.json   the manifest: path -> sha256 and size
//   <root>/runs/<runId>/blobs/<sha256>                a file's bytes, shared by the run's deployments
//   <root>/runs/<runId>/published/<sequence>.json     a published pointer; the highest sequence is live
//   <root>/tmp/                                       files being written (same volume, so rename is atomic)
//
// Why a manifest and blobs rather than the workspace paths as files: a workspace may hold both
// `about` and `about/index.html`, which no filesystem can; and no model-chosen string ever becomes a
// filesystem name (names are ids the store checks and hex digests), so there is no path to traverse.
// Workspace paths still pass the workspace rules (normalizeWorkspacePath) on the way in and out.
//
// Atomic and immutable: every file is written under tmp/, fsynced, then hard-linked into place.
// link(2) fails with EEXIST when the target exists, so the first complete write of a name wins and
// nothing is ever overwritten; a blob is named by its digest, so a second writer holds the same
// bytes anyway. A deployment is complete exactly when its manifest exists, and the manifest is
// linked last, after every blob it names.
//
// No symlinks followed: every directory below the root is lstat-ed and refused if it is a link, and
// files are opened with O_NOFOLLOW. (The root itself may be a link: the operator chose it.) A
// directory found to be a real one is remembered for the process's life: the store never replaces
// a directory, so a link could only appear there by an outside hand with write access to the
// volume — which could as well write the bytes — and the lstat of every level on every read was a
// fifth of the tool worker's site-store CPU (issue #17 profile, 2026-11-24).
//
// Manifests are remembered too (a bounded map, most recently used kept): a complete deployment
// never changes, so reading its manifest again only repeats the same bytes and checks. Blobs are
// read and digest-checked on every read.
import { createHash, randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { link, lstat, mkdir, open, readdir, rm, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { normalizeWorkspacePath } from '../safety/workspace-path.js';
// Ids become directory and file names, so the store checks them itself, whatever its callers did.
import { DEPLOY_ID_PATTERN, RUN_ID_PATTERN } from '../domain/ids.js';
import { SiteStoreCorrupt, SiteStoreRefused, type PublishedPointer, type PutDeploymentResult, type SiteFile, type SiteStore } from './site-store.js';

const SHA256_HEX = /^[0-9a-f]{64}$/;
const SEQUENCE_DIGITS = 15;
/** Manifests remembered per process (a 12-turn build reads its few deployments' manifests many
 * times; the sites server reads a live site's on every request). */
const MANIFEST_MEMO_ENTRIES = 512;
/** Directories remembered as checked; past this the memo starts over (it is only a shortcut). */
const VERIFIED_DIRECTORY_ENTRIES = 10_000;
const POINTER_NAME = new RegExp(`^\\d{${SEQUENCE_DIGITS}}\\.json$`);

const manifestSchema = z.strictObject({
  version: z.literal(1),
  runId: z.string().regex(RUN_ID_PATTERN),
  deployId: z.string().regex(DEPLOY_ID_PATTERN),
  createdAt: z.string(),
  files: z.record(z.string(), z.strictObject({ sha256: z.string().regex(SHA256_HEX), bytes: z.number().int().nonnegative() })),
});
type Manifest = z.infer<typeof manifestSchema>;

const pointerSchema = z.strictObject({
  deployId: z.string().regex(DEPLOY_ID_PATTERN),
  sequence: z.number().int().nonnegative(),
  publishedAt: z.string(),
});

function isErrorCode(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code;
}

function checkRunId(runId: string): void {
  if (!RUN_ID_PATTERN.test(runId)) throw new SiteStoreRefused(`not a run id: ${JSON.stringify(runId).slice(0, 80)}`);
}

function checkIds(runId: string, deployId: string): void {
  checkRunId(runId);
  if (!DEPLOY_ID_PATTERN.test(deployId)) throw new SiteStoreRefused(`not a deploy id: ${JSON.stringify(deployId).slice(0, 80)}`);
}

/** The workspace path, or null when the workspace rules refuse it. */
function workspacePathOrNull(path: string): string | null {
  try {
    return normalizeWorkspacePath(path);
  } catch {
    return null;
  }
}

function manifestKey(runId: string, deployId: string): string {
  return `${runId}/${deployId}`;
}

function sha256Hex(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export class DirectorySiteStore implements SiteStore {
  readonly root: string;
  private readonly verifiedDirectories = new Set<string>();
  private readonly manifests = new Map<string, Manifest>();

  constructor({ root }: { root: string }) {
    this.root = root;
  }

  async putDeployment({ runId, deployId, files }: { runId: string; deployId: string; files: readonly SiteFile[] }): Promise<PutDeploymentResult> {
    checkIds(runId, deployId);
    const existing = await this.readManifest(runId, deployId);
    if (existing) return { created: false, paths: Object.keys(existing.files).sort() };

    const entries: Manifest['files'] = {};
    const blobs: Array<{ sha256: string; bytes: Buffer }> = [];
    for (const file of files) {
      const path = workspacePathOrNull(file.path);
      if (path === null) throw new SiteStoreRefused(`not a workspace path: ${JSON.stringify(file.path).slice(0, 80)}`);
      if (Object.hasOwn(entries, path)) throw new SiteStoreRefused(`path given twice: ${path}`);
      const bytes = Buffer.from(file.content, 'utf8');
      const sha256 = sha256Hex(bytes);
      entries[path] = { sha256, bytes: bytes.length };
      blobs.push({ sha256, bytes });
    }

    await this.ensureDirectory(['runs', runId, 'blobs']);
    await this.ensureDirectory(['runs', runId, 'deployments']);
    // Blobs first, all of them durable before the manifest that names them is linked. A blob an
    // earlier deployment of the run stored is not written again (same digest, same bytes), and the
    // directory is synced once for the names this call added, not once per blob.
    let linked = false;
    for (const blob of blobs) {
      if (await this.regularFileExists(['runs', runId, 'blobs', blob.sha256])) continue;
      if (await this.createOnce(['runs', runId, 'blobs', blob.sha256], blob.bytes, { syncDirectory: false })) linked = true;
    }
    if (linked) await this.syncDirectory(['runs', runId, 'blobs']);
    const manifest: Manifest = { version: 1, runId, deployId, createdAt: new Date().toISOString(), files: entries };
    const created = await this.createOnce(['runs', runId, 'deployments', `${deployId}.json`], Buffer.from(JSON.stringify(manifest)));
    if (created) {
      this.remember(runId, deployId, manifest);
      return { created: true, paths: Object.keys(entries).sort() };
    }
    // A concurrent duplicate of this deploy linked its manifest first: that one is the deployment.
    const winner = await this.readManifest(runId, deployId);
    if (!winner) throw new SiteStoreCorrupt(`deployment ${runId}/${deployId} vanished while being written`);
    return { created: false, paths: Object.keys(winner.files).sort() };
  }

  async deploymentPaths({ runId, deployId }: { runId: string; deployId: string }): Promise<string[] | null> {
    checkIds(runId, deployId);
    const manifest = await this.readManifest(runId, deployId);
    return manifest ? Object.keys(manifest.files).sort() : null;
  }

  async readDeploymentFile({ runId, deployId, path }: { runId: string; deployId: string; path: string }): Promise<string | null> {
    checkIds(runId, deployId);
    const workspacePath = workspacePathOrNull(path);
    if (workspacePath === null) return null;
    const manifest = await this.readManifest(runId, deployId);
    const entry = manifest && Object.hasOwn(manifest.files, workspacePath) ? manifest.files[workspacePath] : undefined;
    if (!entry) return null;
    const bytes = await this.readNoFollow(['runs', runId, 'blobs', entry.sha256]);
    if (bytes === null || bytes.length !== entry.bytes || sha256Hex(bytes) !== entry.sha256) {
      throw new SiteStoreCorrupt(`blob ${entry.sha256} of ${runId}/${deployId}:${workspacePath} is missing or does not match its digest`);
    }
    return bytes.toString('utf8');
  }

  async listDeployments(runId: string): Promise<string[]> {
    checkRunId(runId);
    const names = await this.listDirectory(['runs', runId, 'deployments']);
    return names
      .filter((name) => name.endsWith('.json'))
      .map((name) => name.slice(0, -'.json'.length))
      .filter((deployId) => DEPLOY_ID_PATTERN.test(deployId))
      .sort();
  }

  async discardDeployment({ runId, deployId }: { runId: string; deployId: string }): Promise<void> {
    checkIds(runId, deployId);
    // Only the manifest: blobs may be shared with the run's other deployments, and a blob no
    // manifest names is never served (it costs space until the run's directory is removed).
    await this.assertNoLinks(['runs', runId, 'deployments']);
    this.manifests.delete(manifestKey(runId, deployId));
    await rm(join(this.root, 'runs', runId, 'deployments', `${deployId}.json`), { force: true });
  }

  async publish({ runId, deployId, sequence }: { runId: string; deployId: string; sequence: number }): Promise<void> {
    checkIds(runId, deployId);
    if (!Number.isSafeInteger(sequence) || sequence < 0 || String(sequence).length > SEQUENCE_DIGITS) {
      throw new SiteStoreRefused(`not a publish sequence: ${sequence}`);
    }
    // One file per sequence rather than one file replaced: two publishes racing on two workers
    // can land on disk in either order, and the reader still picks the one the engine ordered last.
    await this.ensureDirectory(['runs', runId, 'published']);
    const name = `${String(sequence).padStart(SEQUENCE_DIGITS, '0')}.json`;
    const pointer: PublishedPointer = { deployId, sequence, publishedAt: new Date().toISOString() };
    await this.createOnce(['runs', runId, 'published', name], Buffer.from(JSON.stringify(pointer)));
    // Older pointers are dead weight once a higher one exists; removing them is safe in any order.
    for (const older of (await this.listDirectory(['runs', runId, 'published'])).filter((other) => POINTER_NAME.test(other) && other < name)) {
      await unlink(join(this.root, 'runs', runId, 'published', older)).catch((error: unknown) => {
        if (!isErrorCode(error, 'ENOENT')) throw error;
      });
    }
  }

  async readPublished(runId: string): Promise<PublishedPointer | null> {
    checkRunId(runId);
    const names = (await this.listDirectory(['runs', runId, 'published'])).filter((name) => POINTER_NAME.test(name)).sort();
    const latest = names.at(-1);
    if (!latest) return null;
    const bytes = await this.readNoFollow(['runs', runId, 'published', latest]);
    // Pruned by a concurrent publish between the listing and the read: that publish is newer.
    if (bytes === null) return this.readPublished(runId);
    let decoded: unknown;
    try {
      decoded = JSON.parse(bytes.toString('utf8'));
    } catch {
      throw new SiteStoreCorrupt(`published pointer ${runId}/${latest} is not JSON`);
    }
    const parsed = pointerSchema.safeParse(decoded);
    if (!parsed.success || `${String(parsed.data.sequence).padStart(SEQUENCE_DIGITS, '0')}.json` !== latest) {
      throw new SiteStoreCorrupt(`published pointer ${runId}/${latest} does not decode`);
    }
    return parsed.data;
  }

  // ---- the filesystem, guarded ----------------------------------------------------------------

  private async readManifest(runId: string, deployId: string): Promise<Manifest | null> {
    const key = manifestKey(runId, deployId);
    const remembered = this.manifests.get(key);
    if (remembered) {
      // Most recently used last, so the oldest is the first one evicted.
      this.manifests.delete(key);
      this.manifests.set(key, remembered);
      return remembered;
    }
    const manifest = await this.readManifestFromDisk(runId, deployId);
    if (manifest) this.remember(runId, deployId, manifest);
    return manifest;
  }

  private remember(runId: string, deployId: string, manifest: Manifest): void {
    this.manifests.set(manifestKey(runId, deployId), manifest);
    if (this.manifests.size > MANIFEST_MEMO_ENTRIES) this.manifests.delete(this.manifests.keys().next().value!);
  }

  private async readManifestFromDisk(runId: string, deployId: string): Promise<Manifest | null> {
    const bytes = await this.readNoFollow(['runs', runId, 'deployments', `${deployId}.json`]);
    if (bytes === null) return null;
    let decoded: unknown;
    try {
      decoded = JSON.parse(bytes.toString('utf8'));
    } catch {
      throw new SiteStoreCorrupt(`manifest ${runId}/${deployId} is not JSON`);
    }
    const parsed = manifestSchema.safeParse(decoded);
    if (!parsed.success || parsed.data.runId !== runId || parsed.data.deployId !== deployId) {
      throw new SiteStoreCorrupt(`manifest ${runId}/${deployId} does not decode`);
    }
    for (const path of Object.keys(parsed.data.files)) {
      if (workspacePathOrNull(path) !== path) throw new SiteStoreCorrupt(`manifest ${runId}/${deployId} names a path the workspace rules refuse`);
    }
    return parsed.data;
  }

  /** Refuses when any directory from the root down to `segments` is a symbolic link (a missing one
   * is fine: the caller's open or readdir then finds nothing). */
  private async assertNoLinks(segments: readonly string[]): Promise<void> {
    let current = this.root;
    for (const segment of segments) {
      current = join(current, segment);
      if (this.verifiedDirectories.has(current)) continue;
      try {
        const stats = await lstat(current);
        if (stats.isSymbolicLink()) throw new SiteStoreRefused(`${current} is a symbolic link; the site store follows none`);
        if (!stats.isDirectory()) throw new SiteStoreCorrupt(`${current} is not a directory`);
      } catch (error) {
        if (isErrorCode(error, 'ENOENT')) return;
        throw error;
      }
      if (this.verifiedDirectories.size >= VERIFIED_DIRECTORY_ENTRIES) this.verifiedDirectories.clear();
      this.verifiedDirectories.add(current);
    }
  }

  /** Whether `segments` names a regular file (a link there is refused, as everywhere). */
  private async regularFileExists(segments: readonly string[]): Promise<boolean> {
    await this.assertNoLinks(segments.slice(0, -1));
    try {
      const stats = await lstat(join(this.root, ...segments));
      if (stats.isSymbolicLink()) throw new SiteStoreRefused(`${join(this.root, ...segments)} is a symbolic link; the site store follows none`);
      return stats.isFile();
    } catch (error) {
      if (isErrorCode(error, 'ENOENT')) return false;
      throw error;
    }
  }

  /** A file's bytes, or null when it does not exist. Never follows a link. */
  private async readNoFollow(segments: readonly string[]): Promise<Buffer | null> {
    await this.assertNoLinks(segments.slice(0, -1));
    let handle;
    try {
      handle = await open(join(this.root, ...segments), constants.O_RDONLY | constants.O_NOFOLLOW);
    } catch (error) {
      if (isErrorCode(error, 'ENOENT')) return null;
      if (isErrorCode(error, 'ELOOP')) throw new SiteStoreRefused(`${join(this.root, ...segments)} is a symbolic link; the site store follows none`);
      throw error;
    }
    try {
      const stats = await handle.stat();
      if (!stats.isFile()) throw new SiteStoreCorrupt(`${join(this.root, ...segments)} is not a regular file`);
      return await handle.readFile();
    } finally {
      await handle.close();
    }
  }

  private async listDirectory(segments: readonly string[]): Promise<string[]> {
    await this.assertNoLinks(segments);
    try {
      return await readdir(join(this.root, ...segments));
    } catch (error) {
      if (isErrorCode(error, 'ENOENT')) return [];
      throw error;
    }
  }

  private async ensureDirectory(segments: readonly string[]): Promise<void> {
    if (this.verifiedDirectories.has(join(this.root, ...segments))) return;
    await mkdir(join(this.root, ...segments), { recursive: true });
    await this.assertNoLinks(segments);
  }

  /** Writes `bytes` at `segments` unless the file exists: true when this call created it. The
   * bytes are complete and on disk before the name appears (write to tmp/, fsync, link). */
  private async createOnce(segments: readonly string[], bytes: Buffer, options: { syncDirectory?: boolean } = {}): Promise<boolean> {
    try {
      return await this.createOnceIn(segments, bytes, options);
    } catch (error) {
      if (!isErrorCode(error, 'ENOENT')) throw error;
      // A directory remembered as present was removed by an outside hand (an operator clearing
      // tmp/, say): check every level again and make what is missing, once.
      this.verifiedDirectories.clear();
      await this.ensureDirectory(segments.slice(0, -1));
      return this.createOnceIn(segments, bytes, options);
    }
  }

  private async createOnceIn(segments: readonly string[], bytes: Buffer, { syncDirectory = true }: { syncDirectory?: boolean }): Promise<boolean> {
    await this.ensureDirectory(['tmp']);
    const temporary = join(this.root, 'tmp', `${randomBytes(12).toString('hex')}.tmp`);
    const handle = await open(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
    try {
      await handle.writeFile(bytes);
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await this.assertNoLinks(segments.slice(0, -1));
      await link(temporary, join(this.root, ...segments));
      // The caller that asks for no sync syncs the directory itself once for a batch of names.
      if (syncDirectory) await this.syncDirectory(segments.slice(0, -1));
      return true;
    } catch (error) {
      if (isErrorCode(error, 'EEXIST')) return false;
      throw error;
    } finally {
      await unlink(temporary).catch(() => undefined);
    }
  }

  /** Makes a new name durable: the directory entry is on disk, not only the file's bytes. */
  private async syncDirectory(segments: readonly string[]): Promise<void> {
    const handle = await open(join(this.root, ...segments), constants.O_RDONLY | constants.O_DIRECTORY);
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  }
}
