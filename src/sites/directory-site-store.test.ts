import { createHash } from 'node:crypto';
import { lstat, mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DirectorySiteStore } from './directory-site-store.js';
import { SiteStoreCorrupt, SiteStoreRefused } from './site-store.js';

const RUN = 'run_abcdefgh1234';
let root: string;
let store: DirectorySiteStore;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'bf-site-store-'));
  store = new DirectorySiteStore({ root });
});
afterEach(async () => rm(root, { recursive: true, force: true }));

/** Every file under the root with its inode, to show a second write changed nothing. */
async function snapshotTree(directory = root): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  for (const entry of await readdir(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) for (const [inner, inode] of await snapshotTree(path)) found.set(inner, inode);
    else found.set(path, (await lstat(path)).ino);
  }
  return found;
}

describe('DirectorySiteStore', () => {
  it('stores a deployment once, immutably, and reads each file back', async () => {
    const files = [
      { path: 'index.html', content: '<h1>v1</h1>' },
      { path: 'about', content: 'a file' },
      { path: 'about/index.html', content: 'a page under a folder of the same name' },
      { path: 'img/logo.png', content: 'data:image/png;base64,iVBORw0KGgo=' },
    ];
    expect(await store.putDeployment({ runId: RUN, deployId: 'dep_1', files })).toEqual({
      created: true,
      paths: ['about', 'about/index.html', 'img/logo.png', 'index.html'],
    });
    for (const file of files) expect(await store.readDeploymentFile({ runId: RUN, deployId: 'dep_1', path: file.path })).toBe(file.content);
    expect(await store.readDeploymentFile({ runId: RUN, deployId: 'dep_1', path: 'missing.html' })).toBeNull();
    expect(await store.readDeploymentFile({ runId: RUN, deployId: 'dep_other', path: 'index.html' })).toBeNull();

    // A re-delivered deploy: the deployment is complete, so nothing is written, whatever it brings.
    const before = await snapshotTree();
    const again = await store.putDeployment({ runId: RUN, deployId: 'dep_1', files: [{ path: 'index.html', content: '<h1>v2</h1>' }] });
    expect(again).toEqual({ created: false, paths: ['about', 'about/index.html', 'img/logo.png', 'index.html'] });
    expect(await snapshotTree()).toEqual(before);
    expect(await store.readDeploymentFile({ runId: RUN, deployId: 'dep_1', path: 'index.html' })).toBe('<h1>v1</h1>');
    expect(await store.listDeployments(RUN)).toEqual(['dep_1']);
    // Nothing is left being written.
    expect(await readdir(join(root, 'tmp'))).toEqual([]);
  });

  it('lets the first of two concurrent writers of one deploy id win', async () => {
    const results = await Promise.all(
      ['first', 'second', 'third'].map((content) => store.putDeployment({ runId: RUN, deployId: 'dep_race', files: [{ path: 'index.html', content }] })),
    );
    expect(results.filter((result) => result.created)).toHaveLength(1);
    const served = await store.readDeploymentFile({ runId: RUN, deployId: 'dep_race', path: 'index.html' });
    const winner = ['first', 'second', 'third'][results.findIndex((result) => result.created)];
    expect(served).toBe(winner);
  });

  it('refuses traversal in ids and paths, on the way in and out', async () => {
    for (const path of ['../x', 'a/../../x', '/etc/passwd', 'a//b', '.env', 'a\\b', '%2e%2e/x', 'C:/x']) {
      await expect(store.putDeployment({ runId: RUN, deployId: 'dep_1', files: [{ path, content: 'x' }] })).rejects.toBeInstanceOf(SiteStoreRefused);
      expect(await store.readDeploymentFile({ runId: RUN, deployId: 'dep_1', path })).toBeNull();
    }
    for (const runId of ['..', 'run_../../x', 'run_abcdefgh/..', '']) {
      await expect(store.putDeployment({ runId, deployId: 'dep_1', files: [] })).rejects.toBeInstanceOf(SiteStoreRefused);
      await expect(store.readPublished(runId)).rejects.toBeInstanceOf(SiteStoreRefused);
    }
    for (const deployId of ['..', '../dep', 'dep/x', 'dep.json']) {
      await expect(store.readDeploymentFile({ runId: RUN, deployId, path: 'index.html' })).rejects.toBeInstanceOf(SiteStoreRefused);
    }
    // Nothing was created by any refused call.
    expect(await snapshotTree()).toEqual(new Map());
  });

  it('follows no symlink: a linked run folder, manifest folder or blob is refused', async () => {
    const outside = await mkdtemp(join(tmpdir(), 'bf-site-outside-'));
    try {
      await store.putDeployment({ runId: RUN, deployId: 'dep_1', files: [{ path: 'index.html', content: 'ours' }] });
      // A blob replaced by a link to a file outside the store.
      await writeFile(join(outside, 'secret'), 'ours');
      const [blob] = await readdir(join(root, 'runs', RUN, 'blobs'));
      await rm(join(root, 'runs', RUN, 'blobs', blob!));
      await symlink(join(outside, 'secret'), join(root, 'runs', RUN, 'blobs', blob!));
      await expect(store.readDeploymentFile({ runId: RUN, deployId: 'dep_1', path: 'index.html' })).rejects.toBeInstanceOf(SiteStoreRefused);

      // A whole run folder that is a link to a copy of a store elsewhere.
      const other = 'run_zzzzzzzz9999';
      const elsewhere = new DirectorySiteStore({ root: outside });
      await elsewhere.putDeployment({ runId: other, deployId: 'dep_x', files: [{ path: 'index.html', content: 'theirs' }] });
      await mkdir(join(root, 'runs'), { recursive: true });
      await symlink(join(outside, 'runs', other), join(root, 'runs', other));
      await expect(store.readDeploymentFile({ runId: other, deployId: 'dep_x', path: 'index.html' })).rejects.toBeInstanceOf(SiteStoreRefused);
      await expect(store.listDeployments(other)).rejects.toBeInstanceOf(SiteStoreRefused);
      await expect(store.putDeployment({ runId: other, deployId: 'dep_y', files: [{ path: 'a.html', content: 'x' }] })).rejects.toBeInstanceOf(SiteStoreRefused);
      expect(await elsewhere.listDeployments(other)).toEqual(['dep_x']);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it('serves no blob whose bytes do not match the manifest', async () => {
    await store.putDeployment({ runId: RUN, deployId: 'dep_1', files: [{ path: 'index.html', content: 'ours' }] });
    const [blob] = await readdir(join(root, 'runs', RUN, 'blobs'));
    await rm(join(root, 'runs', RUN, 'blobs', blob!));
    await writeFile(join(root, 'runs', RUN, 'blobs', blob!), 'tampered');
    await expect(store.readDeploymentFile({ runId: RUN, deployId: 'dep_1', path: 'index.html' })).rejects.toBeInstanceOf(SiteStoreCorrupt);
  });

  it('keeps the publish with the highest sequence live, whatever order they land in', async () => {
    expect(await store.readPublished(RUN)).toBeNull();
    await store.publish({ runId: RUN, deployId: 'dep_b', sequence: 12 });
    await store.publish({ runId: RUN, deployId: 'dep_a', sequence: 7 });
    expect(await store.readPublished(RUN)).toMatchObject({ deployId: 'dep_b', sequence: 12 });
    // A re-delivered publish writes the same pointer again: nothing changes.
    await store.publish({ runId: RUN, deployId: 'dep_b', sequence: 12 });
    await store.publish({ runId: RUN, deployId: 'dep_a', sequence: 30 });
    expect(await store.readPublished(RUN)).toMatchObject({ deployId: 'dep_a', sequence: 30 });
    expect(await readdir(join(root, 'runs', RUN, 'published'))).toEqual(['000000000000030.json']);
    await expect(store.publish({ runId: RUN, deployId: 'dep_a', sequence: -1 })).rejects.toBeInstanceOf(SiteStoreRefused);
  });

  it('discards only the named deployment', async () => {
    await store.putDeployment({ runId: RUN, deployId: 'dep_1', files: [{ path: 'index.html', content: 'same' }] });
    await store.putDeployment({ runId: RUN, deployId: 'dep_2', files: [{ path: 'index.html', content: 'same' }] });
    // Read once, so the manifest is remembered: a discard must forget it too.
    expect(await store.readDeploymentFile({ runId: RUN, deployId: 'dep_1', path: 'index.html' })).toBe('same');
    await store.discardDeployment({ runId: RUN, deployId: 'dep_1' });
    expect(await store.listDeployments(RUN)).toEqual(['dep_2']);
    expect(await store.readDeploymentFile({ runId: RUN, deployId: 'dep_1', path: 'index.html' })).toBeNull();
    expect(await store.deploymentPaths({ runId: RUN, deployId: 'dep_1' })).toBeNull();
    expect(await store.readDeploymentFile({ runId: RUN, deployId: 'dep_2', path: 'index.html' })).toBe('same');
  });

  it('writes a blob the run already holds no second time, and refuses one that is a link', async () => {
    await store.putDeployment({ runId: RUN, deployId: 'dep_1', files: [{ path: 'index.html', content: 'kept' }, { path: 'a.css', content: 'x' }] });
    const blobs = join(root, 'runs', RUN, 'blobs');
    const before = new Map(await Promise.all((await readdir(blobs)).map(async (name) => [name, (await lstat(join(blobs, name))).ino] as const)));
    await store.putDeployment({ runId: RUN, deployId: 'dep_2', files: [{ path: 'index.html', content: 'kept' }, { path: 'a.css', content: 'changed' }] });
    const after = await readdir(blobs);
    expect(after).toHaveLength(3);
    for (const [name, inode] of before) expect((await lstat(join(blobs, name))).ino).toBe(inode);
    expect(await store.readDeploymentFile({ runId: RUN, deployId: 'dep_2', path: 'a.css' })).toBe('changed');

    // A blob name that is a link is refused rather than taken as "already stored".
    const outside = await mkdtemp(join(tmpdir(), 'bf-site-outside-'));
    try {
      await writeFile(join(outside, 'evil'), 'evil');
      await symlink(join(outside, 'evil'), join(blobs, createHash('sha256').update('planted').digest('hex')));
      await expect(store.putDeployment({ runId: RUN, deployId: 'dep_3', files: [{ path: 'index.html', content: 'planted' }] })).rejects.toBeInstanceOf(SiteStoreRefused);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it('recovers when a directory it made was removed behind its back', async () => {
    await store.putDeployment({ runId: RUN, deployId: 'dep_1', files: [{ path: 'index.html', content: 'one' }] });
    await rm(join(root, 'tmp'), { recursive: true, force: true });
    await rm(join(root, 'runs', RUN, 'published'), { recursive: true, force: true });
    await store.putDeployment({ runId: RUN, deployId: 'dep_2', files: [{ path: 'index.html', content: 'two' }] });
    await store.publish({ runId: RUN, deployId: 'dep_2', sequence: 3 });
    expect(await store.readDeploymentFile({ runId: RUN, deployId: 'dep_2', path: 'index.html' })).toBe('two');
    expect(await store.readPublished(RUN)).toMatchObject({ deployId: 'dep_2', sequence: 3 });
  });
});
