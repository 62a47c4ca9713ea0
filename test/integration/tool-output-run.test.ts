// Output contracts in whole runs: the simulator over HTTP through the real SDK, model and tool
// workers on the real queues. BUILDFLEET_SITES_PUBLIC_URL points at the faulty upstream, so the
// deployment URLs the builder checks with fetch_url_live are served by it: valid, every contract
// holds through a full build; broken, the run stops (fail_closed) or degrades.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFaultyUpstream, type FaultyUpstream } from '../../src/dev/faulty-upstream.js';
import { startInProcessFleet, type InProcessFleet } from '../../src/dev/in-process-fleet.js';
import { testRedisEnv, testRedisUrl, uniquePrefix } from '../support/redis.js';
import { bare } from '../support/tool-output-fleet.js';

let upstream: FaultyUpstream;
beforeAll(async () => {
  upstream = await startFaultyUpstream();
});
afterAll(async () => upstream?.close());
afterEach(() => upstream.setMode('valid'));

async function fleetWith(label: string, env: Record<string, string> = {}): Promise<InProcessFleet> {
  return startInProcessFleet({
    redisUrl: testRedisUrl(),
    prefix: uniquePrefix(label),
    toolWorkers: 2,
    env: { ...testRedisEnv(), BUILDFLEET_SITES_PUBLIC_URL: upstream.origin, BUILDFLEET_KILLSWITCH_MIN_VOLUME: '1000000', ...env },
  });
}

describe('a build whose deployment checks are read from the upstream', () => {
  let harness: InProcessFleet;
  beforeAll(async () => {
    harness = await fleetWith('outrun');
  });
  afterAll(async () => harness?.close());

  it('succeeds with every output validated when the upstream is healthy', async () => {
    const run = await harness.waitForRun((await harness.submit({})).id, 30_000);
    expect(run.error).toBeNull();
    expect(run).toMatchObject({ status: 'succeeded', safeMode: null });
    const events = await harness.fleet.store.readEvents(run.id, '-', 10_000);
    expect(events.filter((event) => event.event === 'tool-output-reject')).toEqual([]);
    expect(events.some((event) => event.event === 'tool-call-end' && event.tool === 'fetch_url_live' && event.ok === true)).toBe(true);
  });

  it('degrades to skip_writes when the deployment answers truncated JSON: nothing is published', async () => {
    upstream.setMode('broken', 'truncated_json');
    const run = await harness.waitForRun((await harness.submit({})).id, 30_000);
    expect(run.safeMode).toBe('skip_writes');
    expect(run.liveDeploy).toBeNull();
    const events = (await harness.fleet.store.readEvents(run.id, '-', 10_000)).map(bare);
    expect(events).toContainEqual(expect.objectContaining({ event: 'tool-output-reject', tool: 'fetch_url_live', ok: false, error: 'ToolOutputInvalid', reason: 'unexpected_content_type:application/json' }));
    expect(events).toContainEqual(expect.objectContaining({ event: 'run-stop', reason: 'invalid_tool_output', safe_mode: 'skip_writes' }));
    const refusedWrites = events.filter((event) => event.event === 'tool-call-end' && event.error_code === 'safe_mode_skip_writes');
    expect(refusedWrites.map((event) => event.tool)).toContain('publish');
  });
});

describe('fail_closed in a whole run', () => {
  let harness: InProcessFleet;
  beforeAll(async () => {
    harness = await fleetWith('outrunclosed', { BUILDFLEET_TOOL_OUTPUT_MODES: 'fetch_url_live=fail_closed' });
  });
  afterAll(async () => harness?.close());

  it('stops the run with invalid_tool_output when the deployment answers a maintenance JSON', async () => {
    upstream.setMode('broken', 'error_in_success');
    const run = await harness.waitForRun((await harness.submit({})).id, 30_000);
    expect(run).toMatchObject({ status: 'failed', error: { code: 'invalid_tool_output' }, liveDeploy: null });
    // The status turns terminal just before the closing events are appended.
    let events = (await harness.fleet.store.readEvents(run.id, '-', 10_000)).map(bare);
    for (let tries = 0; tries < 100 && events.at(-1)?.event !== 'run-end'; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      events = (await harness.fleet.store.readEvents(run.id, '-', 10_000)).map(bare);
    }
    expect(events).toContainEqual(expect.objectContaining({ event: 'run-stop', reason: 'invalid_tool_output' }));
    expect(events.at(-1)).toMatchObject({ event: 'run-end', status: 'failed', error_code: 'invalid_tool_output' });
  });
});
