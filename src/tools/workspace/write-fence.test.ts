import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KillSwitch } from '../../safety/kill-switch.js';
import { deployTool } from '../build/deploy.js';
import { deleteFileTool } from '../build/delete-file.js';
import { setColorsTool } from '../build/set-colors.js';
import { writeFileTool } from '../build/write-file.js';
import { publishTool } from '../ops/publish.js';
import { regenOgTool } from '../ops/regen-og.js';
import { setMetaTool } from '../ops/set-meta.js';
import { createToolTestHarness, type ToolTestHarness } from '../testing/tool-test-harness.js';
import { readWriteJournal, type WriteJournalEntry } from '../../engine/index.js';

let harness: ToolTestHarness;
let killSwitch: KillSwitch;

beforeAll(async () => {
  harness = await createToolTestHarness('writefence');
  killSwitch = new KillSwitch({ redis: harness.redis, keys: harness.store.keys, runUpstreams: harness.store, settings: { threshold: 0.5, minVolume: 1, windowMs: 60_000, cooldownMs: 0, fleetMinTenants: 1, upstreamMinTenants: 2 } });
});
afterAll(async () => harness.close());

async function journal(runId: string): Promise<WriteJournalEntry[]> {
  return readWriteJournal({ engine: harness.store, runId });
}

const writeCalls = [
  { tool: writeFileTool, input: { path: 'b.html', content: '<p>b</p>' } },
  { tool: deleteFileTool, input: { path: 'a.html' } },
  { tool: setColorsTool, input: { primary: '#112233', background: '#ffffff', text: '#000000' } },
  { tool: deployTool, input: {} },
  { tool: setMetaTool, input: { title: 'T', description: 'D' } },
  { tool: regenOgTool, input: { title: 'T' } },
] as const;

describe('the write fence of the guarded write scripts', () => {
  it('journals every write with its Redis time', async () => {
    const run = await harness.newRun({ phase: 'building' });
    const context = await harness.contextFor(run.id);
    await harness.call(writeFileTool, { path: 'a.html', content: '<p>a</p>' }, { ...context, writeFence: { tool: 'write_file', probeToken: '' } });
    const deployed = await harness.call(deployTool, {}, { ...context, toolUseId: 'toolu_deploy_1' });
    await harness.call(publishTool, { deploy_id: deployed.deploy_id }, context);
    const entries = await journal(run.id);
    expect(entries.map((entry) => [entry.kind, entry.tool])).toEqual([
      ['file', 'write_file'],
      ['deployment', 'unknown'],
      ['publish', 'unknown'],
    ]);
    const [redisSeconds] = await harness.redis.time();
    for (const entry of entries) expect(Math.abs(entry.at_ms - Number(redisSeconds) * 1000)).toBeLessThan(5000);
  });

  it('refuses every write while the kill switch is read_only, atomically in the write script, and writes nothing', async () => {
    const run = await harness.newRun({ phase: 'building' });
    const context = await harness.contextFor(run.id);
    await harness.call(writeFileTool, { path: 'a.html', content: '<p>a</p>' }, context);
    const deployed = await harness.call(deployTool, {}, { ...context, toolUseId: 'toolu_deploy_2' });
    const before = (await journal(run.id)).length;
    await killSwitch.setMode({ mode: 'read_only', reason: 'test' });
    try {
      for (const { tool, input } of writeCalls) {
        await expect(harness.call(tool, input, context), tool.name).rejects.toMatchObject({ code: 'killswitch_read_only' });
      }
      await expect(harness.call(publishTool, { deploy_id: deployed.deploy_id }, context)).rejects.toMatchObject({ code: 'killswitch_read_only' });
      // A retried deploy call finds the deployment it already made: nothing new is written.
      expect(await harness.call(deployTool, {}, { ...context, toolUseId: 'toolu_deploy_2' })).toMatchObject({ deploy_id: deployed.deploy_id });
    } finally {
      await killSwitch.setMode({ mode: 'read_write', reason: 'test over' });
    }
    expect(await journal(run.id)).toHaveLength(before);
    expect(await harness.store.readFile(run.id, 'b.html')).toBeNull();
    expect((await harness.store.getRun(run.id))?.liveDeploy).toBeNull();
  });

  it('lets only the probe write through while half-open', async () => {
    const run = await harness.newRun({ phase: 'building' });
    const context = await harness.contextFor(run.id);
    // The kill switch's own state, not the run's: a half-open switch whose probe is held, set
    // directly because reaching it through KillSwitch needs a trip and a cool-down.
    await harness.redis.hset(harness.store.keys.killSwitch(), 'mode', 'half_open', 'probe', 'probe_abc', 'probe_until', String(Date.now() + 60_000));
    try {
      await expect(harness.call(writeFileTool, { path: 'x.html', content: 'x' }, context)).rejects.toMatchObject({ code: 'killswitch_read_only' });
      await harness.call(writeFileTool, { path: 'x.html', content: 'x' }, { ...context, writeFence: { tool: 'write_file', probeToken: 'probe_abc' } });
    } finally {
      await killSwitch.setMode({ mode: 'read_write', reason: 'test over' });
    }
    expect(await harness.store.readFile(run.id, 'x.html')).toBe('x');
  });

  it('refuses writes of a run in skip_writes safe mode or already ended', async () => {
    const safe = await harness.newRun({ phase: 'building' });
    await harness.store.updateRun(safe.id, { safeMode: 'skip_writes' });
    await expect(harness.call(writeFileTool, { path: 'a.html', content: 'a' }, await harness.contextFor(safe.id))).rejects.toMatchObject({
      code: 'safe_mode_skip_writes',
    });
    const ended = await harness.newRun({ phase: 'building' });
    await harness.store.endRun(ended.id, ended.turn, 'cancelled', {});
    await expect(harness.call(writeFileTool, { path: 'a.html', content: 'a' }, await harness.contextFor(ended.id))).rejects.toMatchObject({ code: 'run_ended' });
    expect(await harness.store.listFiles(safe.id)).toEqual([]);
    expect(await harness.store.listFiles(ended.id)).toEqual([]);
  });
});
