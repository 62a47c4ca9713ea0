// A fleet for the output-contract and kill-switch tests: real Redis (the suite's, own prefix),
// the faulty upstream on a loopback port (allowlisted), and N real tool workers, each with its
// own recording safety hooks. Tool calls go through the real tool queue, like the model worker
// sends them; the model side is left out so each call's outcome is the test's to choose.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Worker } from 'bullmq';
import { loadConfig, type Config } from '../../src/config.js';
import { SUITE_MODEL } from './suite-model.js';
import { startFaultyUpstream, type FaultyUpstream, type FaultyUpstreamOptions } from '../../src/dev/faulty-upstream.js';
import { createFleetContext, type FleetContext } from '../../src/fleet/fleet-context.js';
import { jobIds, toolJobSchema } from '../../src/jobs/job-catalog.js';
import { startToolWorker } from '../../src/workers/tool-worker.js';
import { type StoredEvent, type StoredToolResult, type RunRecord, readWriteJournal, type WriteJournalEntry } from '../../src/engine/index.js';
import { KillSwitch } from '../../src/safety/kill-switch.js';
import type { KillSwitchMode } from '../../src/safety/kill-switch-mode.js';
import type { ToolJobHooks } from '../../src/tools/run-tool-job.js';
import { deletePrefix, testRedisEnv, uniquePrefix } from './redis.js';

export interface SafetyRecord {
  worker: number;
  kind: 'invalid' | 'injection' | 'state' | 'refused' | 'result';
  tool?: string;
  detail: string;
}

export type JournalEntry = WriteJournalEntry;

export interface ToolOutputFleet {
  config: Config;
  fleet: FleetContext;
  upstream: FaultyUpstream;
  workers: Worker[];
  /** A switch over the fleet's keys, for the test to read and reset. */
  killSwitch: KillSwitch;
  /** Every hook call of every worker, in order. */
  records: SafetyRecord[];
  newRun(update?: Partial<RunRecord>): Promise<RunRecord>;
  /** Sends one tool call through the tool queue and waits for its ledger entry. */
  callTool(runId: string, name: string, input: unknown, options?: { turn?: number; toolUseId?: string }): Promise<StoredToolResult & { error_reason?: string }>;
  /** Enqueues without waiting; returns the tool_use id. */
  enqueueTool(runId: string, name: string, input: unknown, options?: { turn?: number; toolUseId?: string }): Promise<string>;
  waitForResult(runId: string, toolUseId: string, timeoutMs?: number): Promise<StoredToolResult & { error_reason?: string }>;
  events(runId: string): Promise<StoredEvent[]>;
  journal(runId: string): Promise<JournalEntry[]>;
  close(): Promise<void>;
}

export async function startToolOutputFleet(options: {
  label: string;
  env?: Record<string, string>;
  toolWorkers?: number;
  upstream?: FaultyUpstreamOptions;
}): Promise<ToolOutputFleet> {
  const upstream = await startFaultyUpstream(options.upstream ?? {});
  // A site store of its own (deploy writes there), removed on close.
  const sitesDir = await mkdtemp(join(tmpdir(), 'bf-sites-tool-output-'));
  const config = loadConfig({
    BUILDFLEET_MODEL: SUITE_MODEL,
    BUILDFLEET_SITES_DIR: sitesDir,
    ...testRedisEnv(),
    BUILDFLEET_PREFIX: uniquePrefix(options.label),
    BUILDFLEET_FETCH_ALLOWLIST: upstream.origin,
    LOG_LEVEL: 'silent',
    ...options.env,
  });
  const fleet = createFleetContext(config, 'test');
  const records: SafetyRecord[] = [];
  const workers: Worker[] = [];
  for (let index = 0; index < (options.toolWorkers ?? 2); index += 1) {
    const hooks: ToolJobHooks = {
      onToolOutputInvalid: (tool, reason) => records.push({ worker: index, kind: 'invalid', tool, detail: reason }),
      onInjectionFlagged: (tool, patterns) => records.push({ worker: index, kind: 'injection', tool, detail: patterns.join(',') }),
      onKillSwitchState: (mode: KillSwitchMode) => records.push({ worker: index, kind: 'state', detail: mode }),
      onWriteRefused: (tool, cause) => records.push({ worker: index, kind: 'refused', tool, detail: cause }),
      onToolResult: ({ tool, status, errorCode }) => records.push({ worker: index, kind: 'result', tool, detail: errorCode ?? status }),
    };
    workers.push(startToolWorker(fleet, { hooks }));
  }
  const killSwitch = KillSwitch.forFleet(fleet);
  const { store } = fleet;

  const enqueueTool: ToolOutputFleet['enqueueTool'] = async (runId, name, input, callOptions = {}) => {
    const toolUseId = callOptions.toolUseId ?? `toolu_${randomBytes(8).toString('hex')}`;
    const data = toolJobSchema.parse({ runId, turn: callOptions.turn ?? 1, toolUseId, name, input, parseMode: 'native', trace: {} });
    await fleet.queues.own.tool.add(name, data, { jobId: jobIds.tool(runId, toolUseId), attempts: 3, backoff: { type: 'exponential', delay: 100 } });
    return toolUseId;
  };
  const waitForResult: ToolOutputFleet['waitForResult'] = async (runId, toolUseId, timeoutMs = 15_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const stored = await store.getStoredToolResult(runId, toolUseId);
      if (stored) return stored;
      if (Date.now() > deadline) throw new Error(`no tool_result for ${toolUseId} of ${runId} within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };

  return {
    config,
    fleet,
    upstream,
    workers,
    killSwitch,
    records,
    async newRun(update = { phase: 'building', status: 'running' }) {
      const run = await store.createRun({ tenant: 'default', prompt: 'Build a bakery site', model: 'test', maxTurns: 40, maxTokens: 4096, options: {} });
      await store.updateRun(run.id, update);
      return (await store.getRun(run.id)) as RunRecord;
    },
    enqueueTool,
    waitForResult,
    async callTool(runId, name, input, callOptions) {
      return waitForResult(runId, await enqueueTool(runId, name, input, callOptions));
    },
    events: (runId) => store.readEvents(runId, '-', 10_000),
    async journal(runId) {
      return readWriteJournal({ engine: store, runId });
    },
    async close() {
      await Promise.all(workers.map((worker) => worker.close(true)));
      await upstream.close();
      await deletePrefix(fleet.redis, config.BUILDFLEET_PREFIX);
      await fleet.close();
      await rm(sitesDir, { recursive: true, force: true });
    },
  };
}

/** An event without its stream id and timestamp, for exact comparisons with the lines. */
export function bare(event: StoredEvent): Record<string, unknown> {
  const { id: _id, at: _at, ...rest } = event;
  return rest;
}
