// Test-only: a real RunEngine on the suite's Redis under a private prefix, runs to call tools on,
// and ToolContexts built the way the tool worker builds them. Not used by production code. State
// is seeded through the operations production uses (the engine's transitions and effects), so a
// test cannot set up a run that production could not reach.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import type { RedisClient } from '../../redis/redis-connection.js';
import { connectTestRedis, deletePrefix, uniquePrefix } from '../../../test/support/redis.js';
import { configSchema, type Config } from '../../config.js';
import { writeWorkspaceFile, createKeySpace, RunEngine, type RunRecord } from '../../engine/index.js';
import { siteStoreOf } from '../../sites/site-store-of-config.js';
import { seedDeployment } from '../../../test/support/seed-deployment.js';
import type { ToolContext, ToolImplementation } from '../tool-types.js';

export interface ToolTestHarness {
  redis: RedisClient;
  store: RunEngine;
  prefix: string;
  /** Creates a run, optionally already in a later phase. */
  newRun(update?: Partial<RunRecord>): Promise<RunRecord>;
  /** Puts a workspace file through the write path write_file uses; throws unless it was written. */
  writeFile(runId: string, path: string, content: string): Promise<void>;
  /** Deploys the run's workspace as `deployId`, as the deploy tool does (files on the harness's site store). */
  deploy(runId: string, deployId: string): Promise<void>;
  /** A context for a run, read fresh from the store; overrides replace any field. */
  contextFor(runId: string, overrides?: Partial<Omit<ToolContext, 'config'>> & { config?: Partial<Config> }): Promise<ToolContext>;
  /** Parses input with the tool's schema (as the worker does) and executes it. */
  call(tool: ToolImplementation, input: unknown, context: ToolContext): Promise<any>;
  close(): Promise<void>;
}

let toolUseSequence = 0;

export async function createToolTestHarness(label: string): Promise<ToolTestHarness> {
  const redis = connectTestRedis();
  const prefix = uniquePrefix(label);
  const store = new RunEngine(redis, createKeySpace(prefix));
  const logger = pino({ level: 'silent' });
  // Each harness its own site store, removed on close, so no test writes into the repository.
  const sitesDir = await mkdtemp(join(tmpdir(), `bf-sites-${label}-`));
  const baseConfig = configSchema.parse({ BUILDFLEET_SITES_DIR: sitesDir });
  return {
    redis,
    store,
    prefix,
    async newRun(update) {
      const run = await store.createRun({
        tenant: 'tenant-test',
        prompt: 'Build a site for a bakery',
        model: 'test-model',
        maxTurns: 40,
        maxTokens: 4096,
        options: {},
      });
      if (update) await store.updateRun(run.id, update);
      return (await store.getRun(run.id)) as RunRecord;
    },
    async writeFile(runId, path, content) {
      const outcome = await writeWorkspaceFile({ engine: store, runId, path, content });
      if (outcome !== 'ok') throw new Error(`seeding ${path} of ${runId}: the workspace write returned ${outcome}`);
    },
    async deploy(runId, deployId) {
      await seedDeployment({ engine: store, sites: siteStoreOf(baseConfig), runId, deployId });
    },
    async contextFor(runId, overrides = {}) {
      const run = (await store.getRun(runId)) as RunRecord;
      const { config, ...rest } = overrides;
      toolUseSequence += 1;
      return {
        runId,
        run,
        turn: run.turn,
        toolUseId: `toolu_test_${toolUseSequence}`,
        phase: run.phase,
        store,
        config: Object.freeze({ ...baseConfig, ...config }),
        logger,
        signal: new AbortController().signal,
        publicBaseUrl: 'http://127.0.0.1:9',
        ...rest,
      };
    },
    async call(tool, input, context) {
      return tool.execute(tool.inputSchema.parse(input), context);
    },
    async close() {
      await deletePrefix(redis, prefix);
      await redis.quit();
      await rm(sitesDir, { recursive: true, force: true });
    },
  };
}
