import type { RedisClient } from '../../redis/redis-connection.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTestRedis, deletePrefix, uniquePrefix } from '../../../test/support/redis.js';
import { createKeySpace } from '../keys.js';
import { RunEngine } from '../run-engine.js';
import { themeKey } from '../effect-keys.js';
import { StoredRunInvalid } from '../run-record.js';
import { readTheme, updateTheme, type StoredTheme } from './run-theme.js';
import { deleteWorkspaceFile, writeWorkspaceFile } from './workspace-files.js';
import { MAX_FILE_BYTES } from './workspace-limits.js';
import { readWriteJournal } from '../write-journal.js';

let redis: RedisClient;
let prefix: string;
let engine: RunEngine;

beforeAll(() => {
  redis = connectTestRedis();
  prefix = uniquePrefix('effects');
  engine = new RunEngine(redis, createKeySpace(prefix));
});
afterAll(async () => {
  await deletePrefix(redis, prefix);
  await redis.quit();
});

async function newRunId(): Promise<string> {
  const run = await engine.createRun({ tenant: 'tenant-test', prompt: 'Build a site', model: 'test-model', maxTurns: 10, maxTokens: 1024, options: {} });
  return run.id;
}

const render = (theme: StoredTheme) => `primary=${theme.colors?.primary ?? '-'} body=${theme.fonts?.body ?? '-'}`;

describe('writeWorkspaceFile and deleteWorkspaceFile', () => {
  it('return outcome codes and journal only what they wrote', async () => {
    const runId = await newRunId();
    const fence = { tool: 'write_file', probeToken: '' };
    expect(await writeWorkspaceFile({ engine, runId, path: 'index.html', content: 'x', fence })).toBe('ok');
    expect(await writeWorkspaceFile({ engine, runId, path: 'big.html', content: 'x'.repeat(MAX_FILE_BYTES + 1), fence })).toBe('file_too_large');
    expect(await deleteWorkspaceFile({ engine, runId, path: 'nope.html', fence })).toBe('missing');
    expect(await deleteWorkspaceFile({ engine, runId, path: 'index.html', fence })).toBe('ok');
    expect((await readWriteJournal({ engine, runId })).map((entry) => [entry.tool, entry.kind, entry.target])).toEqual([
      ['write_file', 'file', 'index.html'],
      ['write_file', 'delete', 'index.html'],
    ]);
    expect(await engine.listFiles(runId)).toEqual([]);
  });

  it("make a tool call's write once: its attempt run again after a crash writes nothing, another call's later write stands", async () => {
    const runId = await newRunId();
    const first = { tool: 'write_file', probeToken: '', callId: 'toolu_first' };
    const second = { tool: 'write_file', probeToken: '', callId: 'toolu_second' };
    expect(await writeWorkspaceFile({ engine, runId, path: 'index.html', content: 'v1', fence: first })).toBe('ok');
    // A later call of the same turn writes the same path, then the first call's attempt, which
    // died before its result was recorded, runs again.
    expect(await writeWorkspaceFile({ engine, runId, path: 'index.html', content: 'v2', fence: second })).toBe('ok');
    expect(await writeWorkspaceFile({ engine, runId, path: 'index.html', content: 'v1', fence: first })).toBe('ok');
    expect(await engine.readFile(runId, 'index.html')).toBe('v2');
    // The same call writing another path, or deleting, is another effect.
    expect(await writeWorkspaceFile({ engine, runId, path: 'about.html', content: 'a', fence: first })).toBe('ok');
    const remover = { tool: 'delete_file', probeToken: '', callId: 'toolu_remove' };
    expect(await deleteWorkspaceFile({ engine, runId, path: 'about.html', fence: remover })).toBe('ok');
    expect(await writeWorkspaceFile({ engine, runId, path: 'about.html', content: 'b', fence: second })).toBe('ok');
    expect(await deleteWorkspaceFile({ engine, runId, path: 'about.html', fence: remover })).toBe('ok');
    expect(await engine.readFile(runId, 'about.html')).toBe('b');
    expect((await readWriteJournal({ engine, runId })).map((entry) => [entry.call, entry.kind, entry.target])).toEqual([
      ['toolu_first', 'file', 'index.html'],
      ['toolu_second', 'file', 'index.html'],
      ['toolu_first', 'file', 'about.html'],
      ['toolu_remove', 'delete', 'about.html'],
      ['toolu_second', 'file', 'about.html'],
    ]);
    // A writer that names no call (test seeding, direct callers) writes every time, as before.
    expect(await writeWorkspaceFile({ engine, runId, path: 'seed.html', content: 's' })).toBe('ok');
    expect(await writeWorkspaceFile({ engine, runId, path: 'seed.html', content: 's' })).toBe('ok');
    expect((await readWriteJournal({ engine, runId })).filter((entry) => entry.target === 'seed.html')).toHaveLength(2);
  });

  it('refuse a run that ended, writing nothing', async () => {
    const runId = await newRunId();
    await engine.endRun(runId, 0, 'cancelled', {});
    expect(await writeWorkspaceFile({ engine, runId, path: 'index.html', content: 'x' })).toBe('run_ended');
    expect(await engine.listFiles(runId)).toEqual([]);
    expect(await readWriteJournal({ engine, runId })).toEqual([]);
  });

  it('write a theme-guarded file only while the theme is still at the version it was rendered from', async () => {
    const runId = await newRunId();
    const file = { path: 'theme.css', render };
    await updateTheme({ engine, runId, part: { colors: { primary: '#111111', background: '#ffffff', text: '#000000' } }, file });
    const second = await updateTheme({ engine, runId, part: { fonts: { heading: 'Lora', body: 'Inter' } }, file });
    expect(second).toMatchObject({ fileWrite: 'ok', content: 'primary=#111111 body=Inter' });
    // Version 2 is current: a write rendered from version 1 is stale and changes nothing.
    expect(await writeWorkspaceFile({ engine, runId, path: 'theme.css', content: 'old', guard: { themeVersion: 1 } })).toBe('stale');
    expect(await engine.readFile(runId, 'theme.css')).toBe('primary=#111111 body=Inter');
    expect(await writeWorkspaceFile({ engine, runId, path: 'theme.css', content: 'new', guard: { themeVersion: 2 } })).toBe('ok');
    expect(await engine.readFile(runId, 'theme.css')).toBe('new');
  });

  it('let a call run again write its theme file when it now holds the newest version', async () => {
    const runId = await newRunId();
    const file = { path: 'theme.css', render };
    const fonts = { tool: 'set_fonts', probeToken: '', callId: 'toolu_fonts' };
    // The fonts call writes theme.css from version 1, then dies before its result is recorded.
    expect(await updateTheme({ engine, runId, part: { fonts: { heading: 'Lora', body: 'Inter' } }, file, fence: fonts })).toMatchObject({ fileWrite: 'ok' });
    // Another call stores colors (version 2) and dies before writing theme.css.
    const dies = { path: 'theme.css', render: (): string => { throw new Error('worker killed'); } };
    await expect(updateTheme({ engine, runId, part: { colors: { primary: '#111111', background: '#ffffff', text: '#000000' } }, file: dies })).rejects.toThrow('worker killed');
    // The fonts call runs again and now holds the newest version (3): it writes theme.css again,
    // or the file would never show the colors.
    expect(await updateTheme({ engine, runId, part: { fonts: { heading: 'Lora', body: 'Inter' } }, file, fence: fonts })).toMatchObject({ fileWrite: 'ok' });
    expect(await engine.readFile(runId, 'theme.css')).toBe('primary=#111111 body=Inter');
  });
});

describe('updateTheme and readTheme', () => {
  it('refuse a run that ended before storing anything', async () => {
    const runId = await newRunId();
    await engine.endRun(runId, 0, 'cancelled', {});
    const result = await updateTheme({ engine, runId, part: { fonts: { heading: 'Lora', body: 'Inter' } }, file: { path: 'theme.css', render } });
    expect(result).toEqual({ refused: 'run_ended' });
    expect(await readTheme({ engine, runId })).toEqual({ colors: null, fonts: null });
  });

  it('reports a stored theme that does not decode instead of passing it on', async () => {
    const runId = await newRunId();
    // Deliberately corrupt state (no production operation stores this): raw Redis is the point.
    await redis.hset(themeKey(engine.keys, runId), 'colors', JSON.stringify({ primary: 7 }));
    await expect(readTheme({ engine, runId })).rejects.toBeInstanceOf(StoredRunInvalid);
  });
});
